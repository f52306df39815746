package winetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// wine is what every script's processes run under: the loader, one
// prefix shared by all scripts (creating one takes a while), and the
// binaries built for it.
type wine struct {
	loader  string // wine64
	prefix  string // WINEPREFIX
	sidecar string // steerable-sidecar.exe (Linux path)
	shell   string // the stand-in shell (Linux path)

	// enforced says which Job Object limits ("procs", "memory") this Wine
	// enforces, as the stand-in shell's probe found: Wine 8.0 accepts
	// them and enforces none, so the steps that need a hit skip.
	enforced map[string]bool
}

// wineEnv is the environment every Wine process gets: the test's prefix,
// no debug chatter, no Mono or Gecko installer prompts, no display.
func (w *wine) env() []string {
	return []string{"WINEPREFIX=" + w.prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "DISPLAY=",
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8"}
}

// winPath is a Linux path as a Windows program under Wine sees it: the
// whole Linux tree is drive Z:.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// jsonEscaped is s as it goes between a JSON string's quotes.
func jsonEscaped(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }

func TestWindows(t *testing.T) {
	if os.Getenv("STEERABLE_TEST_WINE") == "" {
		t.Skip("the Windows scripts run under Wine with STEERABLE_TEST_WINE=1 (make test-windows)")
	}
	w := setUpWine(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/windows",
		Setup: func(env *testscript.Env) error {
			env.Values[sessionKey{}] = newSession(w)
			env.Setenv("WINWORK", winPath(env.WorkDir))
			env.Setenv("WINWORKJ", jsonEscaped(winPath(env.WorkDir)))
			env.Setenv("WINWORKJROOTED", jsonEscaped(strings.TrimPrefix(winPath(env.WorkDir), "Z:"))) // on the current drive
			env.Setenv("WINSHELL", winPath(w.shell))
			// A token unique to the script marks its process trees, so a
			// survivor is found by its command line.
			env.Setenv("UNIQ", strconv.FormatUint(rand.Uint64(), 36))
			// The sidecar's state (the rollback journal) beside the work
			// directory, so a crashed write's recovery is seen at restart.
			env.Setenv("STEERABLE_STATE_DIR", winPath(env.WorkDir+".state"))
			return nil
		},
		Cmds:                cmds,
		Condition:           w.condition,
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
	})
}

// setUpWine builds the binaries and creates the prefix (both at once),
// with a wineserver that lives until the test ends.
func setUpWine(t *testing.T) *wine {
	loader, err := exec.LookPath("wine64")
	if err != nil {
		loader = "/usr/lib/wine/wine64" // Debian's wine64 package ships it there, beside the wine wrapper
		if _, err := os.Stat(loader); err != nil {
			t.Fatal("wine64 not found: install Debian's wine64 package (apt-get install wine64)")
		}
	}
	server, err := exec.LookPath("wineserver")
	if err != nil {
		t.Fatal("wineserver not found: install Debian's wine64 package (apt-get install wine64)")
	}
	dir := t.TempDir()
	w := &wine{loader: loader, prefix: filepath.Join(dir, "prefix"),
		sidecar: filepath.Join(dir, "bin", "steerable-sidecar.exe"), shell: filepath.Join(dir, "bin", "fakeshell.exe")}

	var wg sync.WaitGroup
	errs := make([]error, 3)
	build := func(i int, out, pkg string) {
		defer wg.Done()
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			errs[i] = fmt.Errorf("go build %s for windows/amd64: %v\n%s", pkg, err, b)
		}
	}
	wg.Add(3)
	go build(0, w.sidecar, "steerable.dev/sidecar/cmd/steerable-sidecar")
	go build(1, w.shell, "steerable.dev/sidecar/internal/winetest/testdata/fakeshell")
	go func() { defer wg.Done(); errs[2] = w.createPrefix(t, server) }()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	w.probeJobLimits(t)
	return w
}

// probeJobLimits asks the stand-in shell which Job Object limits are
// enforced here.
func (w *wine) probeJobLimits(t *testing.T) {
	cmd := exec.Command(w.loader, w.shell, "-probe-job")
	cmd.Env = w.env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probing the Job Object limits: %v", err)
	}
	w.enforced = map[string]bool{}
	for _, f := range strings.Fields(string(out)) {
		name, state, _ := strings.Cut(f, "=")
		w.enforced[name] = state == "enforced"
	}
	t.Logf("Job Object limits under this Wine: %s", strings.TrimSpace(string(out)))
}

// condition answers [joblimit:procs] and [joblimit:memory]: whether this
// Wine enforces that Job Object limit.
func (w *wine) condition(cond string) (bool, error) {
	if name, ok := strings.CutPrefix(cond, "joblimit:"); ok {
		enforced, known := w.enforced[name]
		if !known {
			return false, fmt.Errorf("unknown Job Object limit %q (procs or memory)", name)
		}
		return enforced, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// createPrefix starts a persistent wineserver first, its stdio on
// /dev/null: started by the first Wine program instead, it would inherit
// that program's stdout and stderr pipes and hold them open long after the
// program exited, so a script would never see EOF. wineboot then creates
// the prefix, and the stand-in bcryptprimitives.dll goes into its
// system32.
func (w *wine) createPrefix(t *testing.T, server string) error {
	if err := os.MkdirAll(w.prefix, 0o755); err != nil {
		return err
	}
	srv := exec.Command(server, "-p")
	srv.Env = w.env()
	if err := srv.Run(); err != nil {
		return fmt.Errorf("starting wineserver: %v", err)
	}
	t.Cleanup(func() {
		kill := exec.Command(server, "-k")
		kill.Env = w.env()
		kill.Run()
	})
	start := time.Now()
	// Its output goes to a file: the services it starts keep a pipe open.
	logPath := filepath.Join(filepath.Dir(w.prefix), "wineboot.log")
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	boot := exec.Command(w.loader, "wineboot", "-i")
	boot.Env, boot.Stdout, boot.Stderr = w.env(), log, log
	if err := boot.Run(); err != nil {
		b, _ := os.ReadFile(logPath)
		return fmt.Errorf("wineboot -i: %v\n%s", err, b)
	}
	t.Logf("Wine prefix created in %v", time.Since(start).Round(100*time.Millisecond))
	sys32 := filepath.Join(w.prefix, "drive_c", "windows", "system32")
	return os.WriteFile(filepath.Join(sys32, "bcryptprimitives.dll"), processPrngDLL(), 0o644)
}
