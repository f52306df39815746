package main

import (
	"fmt"
	"os"
	"os/exec"
	"unsafe"

	"golang.org/x/sys/windows"
)

// probeJob reports which Job Object limits this Windows (or Wine)
// enforces: it joins a job that allows one active process and 64 MB of
// committed memory, then starts a child and commits 256 MB. Each is
// "enforced" when refused, "ignored" when it went through.
func probeJob() {
	job, err := windows.CreateJobObject(nil, nil)
	check(err)
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS | windows.JOB_OBJECT_LIMIT_JOB_MEMORY |
		windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	info.BasicLimitInformation.ActiveProcessLimit = 1
	info.JobMemoryLimit = 64 << 20
	_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	check(err)
	check(windows.AssignProcessToJobObject(job, windows.CurrentProcess()))

	procs := "enforced"
	child := exec.Command(os.Args[0], "-c", "exit 0")
	if child.Start() == nil {
		procs = "ignored"
		child.Wait()
	}
	memory := "enforced"
	if addr, err := windows.VirtualAlloc(0, 256<<20, windows.MEM_COMMIT|windows.MEM_RESERVE, windows.PAGE_READWRITE); err == nil {
		memory = "ignored"
		windows.VirtualFree(addr, 0, windows.MEM_RELEASE)
	}
	fmt.Printf("procs=%s memory=%s\n", procs, memory)
}
