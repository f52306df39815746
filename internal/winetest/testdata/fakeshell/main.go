// Command fakeshell stands in for bash.exe in the Windows scripts run
// under Wine (STEERABLE_BASH_PATH): the sidecar runs it as
// `fakeshell.exe -c COMMAND`, and COMMAND is a few statements separated
// by ";", each one of:
//
//	echo WORDS…         print the words
//	exit N              exit with code N
//	sleep SECONDS       sleep
//	tree TOKEN DIR N    start N children, each of which starts one grandchild, then return once
//	                    all 2N have written DIR\TOKEN.<pid>: every process of the tree carries
//	                    TOKEN in its command line, so the test can look for survivors
//	spawn N             start N children that sleep, one after the other, and report how many started
//	alloc MB            allocate and touch MB megabytes
//
// It is test scaffolding, built by the test for GOOS=windows.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) >= 3 && os.Args[1] == "-c" {
		for _, stmt := range strings.Split(os.Args[2], ";") {
			run(strings.Fields(stmt))
		}
		return
	}
	if len(os.Args) == 2 && os.Args[1] == "-probe-job" { // which Job Object limits are enforced here
		probeJob()
		return
	}
	if len(os.Args) >= 4 && os.Args[1] == "-hold" { // -hold TOKEN DIR [child]: a member of a tree
		hold(os.Args[2], os.Args[3], len(os.Args) > 4)
		return
	}
	fmt.Fprintln(os.Stderr, "usage: fakeshell -c COMMAND")
	os.Exit(2)
}

func run(w []string) {
	if len(w) == 0 {
		return
	}
	switch w[0] {
	case "echo":
		fmt.Println(strings.Join(w[1:], " "))
	case "exit":
		n, _ := strconv.Atoi(arg(w, 1))
		os.Exit(n)
	case "sleep":
		s, err := strconv.ParseFloat(arg(w, 1), 64)
		check(err)
		time.Sleep(time.Duration(s * float64(time.Second)))
	case "tree":
		n, err := strconv.Atoi(arg(w, 3))
		check(err)
		tree(arg(w, 1), arg(w, 2), n)
	case "spawn":
		n, err := strconv.Atoi(arg(w, 1))
		check(err)
		spawn(n)
	case "alloc":
		mb, err := strconv.Atoi(arg(w, 1))
		check(err)
		b := make([]byte, mb<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Printf("allocated %d MB\n", mb)
	default:
		fmt.Fprintf(os.Stderr, "fakeshell: %s: command not found\n", w[0])
		os.Exit(127)
	}
}

func arg(w []string, i int) string {
	if i >= len(w) {
		fmt.Fprintf(os.Stderr, "fakeshell: %s: missing argument %d\n", w[0], i)
		os.Exit(2)
	}
	return w[i]
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeshell:", err)
		os.Exit(1)
	}
}

// tree starts n children (each starts a grandchild) and waits until all
// 2n have announced themselves, so they are known to be running.
func tree(token, dir string, n int) {
	for range n {
		check(exec.Command(os.Args[0], "-hold", token, dir, "child").Start())
	}
	waitFor(dir, token, 2*n)
	fmt.Printf("tree of %d up\n", 2*n)
}

// hold is a member of a tree: a child starts its grandchild first, then
// announces itself, and sleeps until it is killed.
func hold(token, dir string, child bool) {
	if child {
		check(exec.Command(os.Args[0], "-hold", token, dir).Start())
	}
	check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s.%d", token, os.Getpid())), nil, 0o644))
	time.Sleep(time.Hour)
}

func waitFor(dir, token string, n int) {
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(dir, token+".*")); len(m) >= n {
			return
		}
	}
	fmt.Fprintf(os.Stderr, "fakeshell: the tree of %d did not come up\n", n)
	os.Exit(1)
}

// spawn starts n sleeping children one by one and stops at the first
// that cannot start (a process limit).
func spawn(n int) {
	started := 0
	for range n {
		cmd := exec.Command(os.Args[0], "-c", "sleep 3600")
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "fakeshell: cannot start child %d: %v\n", started+1, err)
			fmt.Printf("started %d\n", started)
			os.Exit(1)
		}
		started++
	}
	fmt.Printf("started %d\n", started)
}
