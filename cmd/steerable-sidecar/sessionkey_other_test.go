//go:build !linux

package main

// plantSessionKey does nothing: kernel keyrings are Linux's.
func plantSessionKey() {}
