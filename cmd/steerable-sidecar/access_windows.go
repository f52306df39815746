package main

import "os"

// writableDir checks that this process may create files in the directory
// d. Windows has no access(2) that reads the ACL the way a create would,
// so it creates and removes a file.
func writableDir(d string) error {
	f, err := os.CreateTemp(d, ".steerable-write-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
