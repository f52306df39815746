package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// No Docker daemon runs where the tests run, so the Dockerfile is held to
// the hadolint rules that can be checked by reading it (the rule ids are
// hadolint's), and the build context to what .dockerignore leaves out.

// dockerInstruction is one instruction of a Dockerfile, continuation lines
// joined.
type dockerInstruction struct {
	line int
	op   string // upper case: FROM, RUN, …
	args string
}

func readDockerfile(t *testing.T) []dockerInstruction {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var out []dockerInstruction
	var cur *dockerInstruction
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if cur == nil {
			op, args, _ := strings.Cut(trimmed, " ")
			out = append(out, dockerInstruction{line: i + 1, op: strings.ToUpper(op)})
			cur = &out[len(out)-1]
			trimmed = args
		}
		cont := strings.HasSuffix(trimmed, "\\")
		cur.args = strings.TrimSpace(cur.args + " " + strings.TrimSuffix(trimmed, "\\"))
		if !cont {
			cur = nil
		}
	}
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestDockerfileRules(t *testing.T) {
	ins := readDockerfile(t)
	goMod, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(goMod)
	if goVersion == nil {
		t.Fatal("go.mod has no go line")
	}
	stages := map[string]bool{}
	lastUser := "root"
	shellPipefail := false
	for _, in := range ins {
		where := func(format string, a ...any) {
			t.Errorf("Dockerfile:%d %s: "+format, append([]any{in.line, in.op}, a...)...)
		}
		switch in.op {
		case "FROM":
			fields := strings.Fields(in.args)
			image := fields[0]
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				stages[fields[2]] = true
			}
			if stages[image] {
				continue
			}
			checkPinned(image, string(goVersion[1]), where)
		case "ADD":
			where("DL3020: use COPY for files of the context")
		case "USER":
			lastUser = in.args
		case "WORKDIR":
			if !strings.HasPrefix(in.args, "/") {
				where("DL3000: WORKDIR %s is not absolute", in.args)
			}
		case "SHELL":
			shellPipefail = strings.Contains(in.args, "pipefail")
		case "ENTRYPOINT", "CMD":
			if !strings.HasPrefix(in.args, "[") {
				where("DL3025: use the JSON form, so signals reach the sidecar and not a shell")
			}
		case "RUN":
			checkRun(in.args, shellPipefail, where)
		}
	}
	if lastUser == "root" || lastUser == "0" || strings.HasPrefix(lastUser, "0:") {
		t.Errorf("DL3002: the image runs as %s; the last USER must not be root", lastUser)
	}
}

// checkPinned: DL3006/DL3007 (a tag, never latest) and, for the Go
// toolchain, the exact release go.mod names, so a rebuild uses the same
// compiler.
func checkPinned(image, goVersion string, fail func(string, ...any)) {
	if strings.Contains(image, "@sha256:") {
		return
	}
	_, tag, ok := strings.Cut(image, ":")
	switch {
	case !ok || tag == "latest":
		fail("DL3006/DL3007: %s must name a tag other than latest, or a digest", image)
	case strings.HasPrefix(image, "golang:") && !strings.HasPrefix(tag, goVersion+"-") && tag != goVersion:
		fail("%s: the Go image must be go.mod's exact release %s", image, goVersion)
	}
}

var pipeInRun = regexp.MustCompile(`[^|]\|[^|]`)

// checkRun: DL3003 (no cd: WORKDIR), DL3004 (no sudo), DL3008's spirit
// for a slim image (DL3015 --no-install-recommends, DL3014 -y, DL3009 the
// lists removed in the same layer), DL4006 (pipes need pipefail).
func checkRun(args string, pipefail bool, fail func(string, ...any)) {
	words := strings.Fields(args)
	for i, w := range words {
		if w == "sudo" {
			fail("DL3004: no sudo in a RUN")
		}
		if w == "cd" && (i == 0 || strings.HasSuffix(words[i-1], "&&")) {
			fail("DL3003: use WORKDIR instead of cd")
		}
	}
	if strings.Contains(args, "apt-get install") {
		for _, need := range []string{"--no-install-recommends", "-y", "rm -rf /var/lib/apt/lists"} {
			if !strings.Contains(args, need) {
				fail("apt-get install without %q", need)
			}
		}
	}
	if pipeInRun.MatchString(args) && !pipefail {
		fail("DL4006: a pipe in RUN needs SHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"]")
	}
}

// TestDockerfileStampsVersion: the image reports the version and commit
// the build arguments carry, and make docker fills them from git.
func TestDockerfileStampsVersion(t *testing.T) {
	var args []string
	build := ""
	for _, in := range readDockerfile(t) {
		switch in.op {
		case "ARG":
			args = append(args, in.args)
		case "RUN":
			if strings.Contains(in.args, "go build") {
				build = in.args
			}
		}
	}
	for _, want := range []string{"-X main.version=${VERSION}", "-X main.commit=${COMMIT}"} {
		if !strings.Contains(build, want) {
			t.Errorf("the go build of the Dockerfile does not stamp %s: %s", want, build)
		}
	}
	if !strings.Contains(strings.Join(args, " "), "VERSION") || !strings.Contains(strings.Join(args, " "), "COMMIT") {
		t.Errorf("the Dockerfile declares ARGs %q, want VERSION and COMMIT", args)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	commit, err := exec.Command("git", "-C", repoRoot(t), "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): make docker has nothing to stamp", err)
	}
	out, err := exec.Command("make", "-s", "-n", "-C", repoRoot(t), "docker").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n docker: %v\n%s", err, out)
	}
	if want := "--build-arg COMMIT=" + strings.TrimSpace(string(commit)); !strings.Contains(string(out), want) {
		t.Errorf("make docker runs %q, want it to pass %s", out, want)
	}
	if !regexp.MustCompile(`--build-arg VERSION=[0-9a-zv]`).Match(out) {
		t.Errorf("make docker runs %q, want it to pass the version from git describe", out)
	}
}

// TestDockerContextLeavesOutIgnoredFiles: everything git ignores (built
// binaries, node_modules, the bench cache) stays out of the build context,
// which otherwise grows several times over after make test.
func TestDockerContextLeavesOutIgnoredFiles(t *testing.T) {
	root := repoRoot(t)
	ignore := dockerIgnored(t, filepath.Join(root, ".dockerignore"))
	// What make test, make bench and make release leave, present or not.
	paths := []string{"bin/steerable-sidecar", "dist/SHA256SUMS", "bench/.cache/bin/core", ".git/HEAD",
		"examples/node-host/node_modules/x/index.js", "cmd/steerable-sidecar/testdata/mcpclient/node_modules/x/index.js",
		"clients/typescript/node_modules/vscode-jsonrpc/package.json", "internal/rpc/rpc.test",
		"clients/typescript/dist/index.js", "clients/python/steerable_sidecar/__pycache__/client.cpython-311.pyc"}
	if out, err := exec.Command("git", "-C", root, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory").Output(); err == nil {
		paths = append(paths, strings.Fields(string(out))...)
	}
	for _, p := range paths {
		if !ignore.excludes(p) {
			t.Errorf("%s (ignored by git) would be sent to docker build: add it to .dockerignore", p)
		}
	}
	for _, kept := range []string{"go.mod", "third_party/jsonschema/go.mod", "cmd/steerable-sidecar/main.go", "protocol/schema"} {
		if ignore.excludes(kept) {
			t.Errorf(".dockerignore leaves out %s, which the build needs", kept)
		}
	}
}
