package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows every child runs in a Job Object of its own, created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and the per-call limits (active
// processes, committed memory of the whole job). The child starts
// suspended, joins the job, and only then runs, so nothing it starts can
// be outside it; Windows puts every process the child starts in the job
// too, with no way out (breakaway is not allowed). When the child returns
// or is stopped, the launcher terminates the job — what it left running
// dies — and when the sidecar dies, however, Windows closes its handle on
// the job and kills everything in it (LifetimeJob).
//
// The child gets no console window (CREATE_NO_WINDOW): a sidecar spawned
// by a GUI host with windowsHide has none either, and a console program
// it starts must not flash one.

// Mode is how children start here: one way, each in a job object.
type Mode struct{}

// candidateModes is the one mode there is.
func candidateModes() []Mode { return []Mode{{}} }

func (Mode) lifetime(*cgroups) Lifetime { return LifetimeJob }

func (Mode) String() string { return "job object" }

// procSys is the child's job and the completion port Windows reports the
// job's limit hits to; mu orders Kill against reap's close of the handles
// (a closed handle's value may be reused).
type procSys struct {
	mu   sync.Mutex
	job  windows.Handle // 0 once closed
	port windows.Handle
}

// killCode is the exit code the launcher terminates a job with, so the
// child's exit tells a kill from an exit ("STKL"; a program exiting with it
// by chance reads as killed).
const killCode = 0x53544b4c

// Start starts la with the caller's io suspended, joins it to a job
// object of its own under lim, and resumes it.
func (l *Launcher) Start(la Spec, io IO, lim Limits) (*Process, error) {
	defer closeAll(la.Files) // the child has its copies once started
	switch {
	case la.Confine != nil:
		return nil, errors.New("thread confinement exists only on Linux")
	case io.TTY != nil:
		return nil, errors.New("a controlling terminal (Command.TTY) exists only on Unix")
	}
	job, port, err := newJob(lim)
	if err != nil {
		return nil, fmt.Errorf("creating the job object: %w", err)
	}
	cmd := la.command(io)
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true,
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NO_WINDOW | windows.CREATE_NEW_PROCESS_GROUP}
	if msysProgram(la.Path) {
		cmd.SysProcAttr.CmdLine = msysCommandLine(la.Args)
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		windows.CloseHandle(port)
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	p.sys.job, p.sys.port = job, port
	if err := joinAndResume(job, uint32(cmd.Process.Pid)); err != nil {
		cmd.Process.Kill() // it may not have joined the job
		cmd.Wait()
		windows.CloseHandle(job)
		windows.CloseHandle(port)
		return nil, fmt.Errorf("starting the command in its job object: %w", err)
	}
	l.track(p)
	go l.reap(p)
	return p, nil
}

// reap waits for the leader, kills what it left in the job, and releases
// the job.
func (l *Launcher) reap(p *Process) {
	p.err = p.cmd.Wait()
	p.exit = jobExit(p.cmd.ProcessState)
	p.sys.mu.Lock()
	windows.TerminateJobObject(p.sys.job, killCode)
	p.exit.Limit = limitHit(p.sys.port)
	windows.CloseHandle(p.sys.job)
	windows.CloseHandle(p.sys.port)
	p.sys.job = 0
	p.sys.mu.Unlock()
	l.forget(p)
	close(p.done)
}

// newJob creates an unnamed, non-inheritable job whose processes die when
// its last handle closes, with lim as its limits, and the completion port
// its notifications go to.
func newJob(lim Limits) (job, port windows.Handle, err error) {
	job, err = windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, 0, err
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | windows.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
	if lim.MaxProcs > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
		info.BasicLimitInformation.ActiveProcessLimit = uint32(lim.MaxProcs)
	}
	if lim.MaxMemoryBytes > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_JOB_MEMORY
		info.JobMemoryLimit = uintptr(lim.MaxMemoryBytes)
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, 0, err
	}
	if port, err = limitPort(job); err != nil {
		windows.CloseHandle(job)
		return 0, 0, err
	}
	return job, port, nil
}

// The job notifications that name a limit (winnt.h).
const (
	jobMsgActiveProcessLimit = 3
	jobMsgProcessMemoryLimit = 9
	jobMsgJobMemoryLimit     = 10
)

// limitPort associates a new completion port with job: Windows posts a
// message there when a process start is refused at the active-process
// limit or an allocation at the memory limit, which is how a hit is known
// for certain (the refused program only sees a failed call).
func limitPort(job windows.Handle) (windows.Handle, error) {
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1)
	if err != nil {
		return 0, fmt.Errorf("creating the job's completion port: %w", err)
	}
	assoc := struct {
		key  uintptr
		port windows.Handle
	}{0, port} // JOBOBJECT_ASSOCIATE_COMPLETION_PORT
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectAssociateCompletionPortInformation,
		uintptr(unsafe.Pointer(&assoc)), uint32(unsafe.Sizeof(assoc))); err != nil {
		windows.CloseHandle(port)
		return 0, fmt.Errorf("associating the job with its completion port: %w", err)
	}
	return port, nil
}

// limitHit drains the job's queued notifications (without waiting) and
// names the limit the job hit: "processes", "memory", or "" for none.
func limitHit(port windows.Handle) string {
	hit := ""
	for {
		var msg uint32
		var key uintptr
		var ov *windows.Overlapped
		if windows.GetQueuedCompletionStatus(port, &msg, &key, &ov, 0) != nil {
			return hit
		}
		switch msg {
		case jobMsgActiveProcessLimit:
			hit = "processes"
		case jobMsgJobMemoryLimit, jobMsgProcessMemoryLimit:
			if hit == "" {
				hit = "memory"
			}
		}
	}
}

// joinAndResume puts the suspended process pid in job and resumes its
// threads (a suspended process has exactly its main thread; os/exec keeps
// no handle on it, so it is found through a thread snapshot).
func joinAndResume(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return err
	}
	err = windows.AssignProcessToJobObject(job, h)
	windows.CloseHandle(h)
	if err != nil {
		return err
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	resumed := 0
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("the suspended process has no thread to resume")
	}
	return nil
}

// msysProgram reports whether path is a shell of the MSYS2 or Cygwin
// runtime (Git for Windows' bash.exe is one), whose argument parser
// differs from Microsoft's (msysCommandLine).
func msysProgram(path string) bool {
	switch strings.ToLower(filepath.Base(path)) {
	case "bash.exe", "sh.exe", "dash.exe":
		return true
	}
	return false
}

// Signal ends the child's whole job for the signals that end a process
// (there are no signals on Windows, and a process without a console gets
// no console control event); other signals are not delivered.
func (p *Process) Signal(sig syscall.Signal) {
	switch sig {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT:
		p.Kill()
	}
}

// Kill terminates every process of the child's job. It is safe to call
// after the child ended.
func (p *Process) Kill() {
	p.sys.mu.Lock()
	defer p.sys.mu.Unlock()
	if p.sys.job != 0 {
		_ = windows.TerminateJobObject(p.sys.job, killCode)
	}
}

// Stop ends the job at once: Windows has no SIGTERM to ask first, so grace
// does not apply.
func (p *Process) Stop(time.Duration) {
	p.Kill()
	<-p.done
}

// jobExit is the child's exit: its exit code, or SIGKILL's 137 and name
// when the launcher terminated its job (a timeout, a cancel, shutdown), so
// a result reads the same on every platform.
func jobExit(state *os.ProcessState) Exit {
	switch {
	case state == nil:
		return Exit{Code: -1}
	case uint32(state.ExitCode()) == killCode:
		return Exit{Code: 128 + 9, Signal: "SIGKILL"}
	}
	return Exit{Code: state.ExitCode()}
}

func (l *Launcher) probeMode(Mode, string) error { return nil }

func (l *Launcher) killOrphans() {}

// startWatchdog starts nothing: the Job Object ends a call's tree when the sidecar dies.
func (l *Launcher) startWatchdog() {}
