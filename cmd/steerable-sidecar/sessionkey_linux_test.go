package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// testSessionKey is the variable through which a script gives the
// sidecar a key in its own session keyring (sandbox_keyrings.txtar): the
// payload of a "user" key described "steerable-e2e-secret".
const testSessionKey = "SIDECAR_TEST_SESSION_KEY"

// plantSessionKey plays a desktop session whose keyring holds a secret:
// when testSessionKey is set, the sidecar joins a new session keyring,
// adds the key to it and re-executes itself without the variable, so all
// of its threads share that keyring from their start.
func plantSessionKey() {
	payload := os.Getenv(testSessionKey)
	if payload == "" {
		return
	}
	runtime.LockOSThread() // the keyring and execve on the same thread
	if _, err := unix.KeyctlJoinSessionKeyring("steerable-e2e"); err != nil {
		failPlant("joining a session keyring: %v", err)
	}
	if _, err := unix.AddKey("user", "steerable-e2e-secret", []byte(payload), unix.KEY_SPEC_SESSION_KEYRING); err != nil {
		failPlant("adding the session key: %v", err)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, testSessionKey+"=") })
	failPlant("re-executing: %v", syscall.Exec("/proc/self/exe", os.Args, env))
}

func failPlant(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "plantSessionKey: "+format+"\n", args...)
	os.Exit(2)
}
