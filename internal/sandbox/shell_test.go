package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/exectest"
)

func TestWindowsShellCandidates(t *testing.T) {
	env := map[string]string{
		"ProgramFiles": `C:\Program Files`, "ProgramW6432": `C:\Program Files`, "ProgramFiles(x86)": `C:\Program Files (x86)`,
		"LOCALAPPDATA": `C:\Users\me\AppData\Local\`, "SystemDrive": "D:",
	}
	want := []string{
		`C:\Program Files\Git\bin\bash.exe`,
		`C:\Program Files (x86)\Git\bin\bash.exe`,
		`C:\Users\me\AppData\Local\Programs\Git\bin\bash.exe`,
		`D:\msys64\usr\bin\bash.exe`,
		`D:\msys32\usr\bin\bash.exe`,
	}
	if diff := cmp.Diff(want, windowsShellCandidates(func(k string) string { return env[k] })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := windowsShellCandidates(func(string) string { return "" }); !cmp.Equal(got, []string{`C:\msys64\usr\bin\bash.exe`, `C:\msys32\usr\bin\bash.exe`}) {
		t.Errorf("empty environment: %q", got)
	}
}

// WSL's bash.exe runs the command in a Linux VM, outside every control of
// the sidecar: it is never taken from PATH.
func TestWSLBashIsRefused(t *testing.T) {
	for path, want := range map[string]bool{
		`C:\Windows\System32\bash.exe`:                             true,
		`c:\windows\system32\BASH.EXE`:                             true,
		`C:\Windows\Sysnative\bash.exe`:                            true,
		`C:\Users\me\AppData\Local\Microsoft\WindowsApps\bash.exe`: true,
		`C:\Program Files\Git\bin\bash.exe`:                        false,
		`C:\msys64\usr\bin\bash.exe`:                               false,
		`C:\Windows\System32-not\bash.exe`:                         false,
	} {
		if got := wslBash(path, `C:\Windows`); got != want {
			t.Errorf("wslBash(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestCheckShell(t *testing.T) {
	dir := t.TempDir()
	bash := filepath.Join(dir, "bash")
	exectest.WriteFile(bash, []byte("#!/bin/sh\n"), 0o755)
	if got, err := checkShell(bash); err != nil || got != bash {
		t.Errorf("checkShell(%q) = %q, %v", bash, got, err)
	}
	for path, want := range map[string]string{"bash": "not an absolute path", dir: "is a directory", dir + "/nope": "no such file"} {
		if _, err := checkShell(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkShell(%q) = %v, want %q", path, err, want)
		}
	}
}
