package main

import (
	"bufio"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// TestDockerfileStagesDownloadModules: the build stage copies a few files
// and runs `go mod download` before copying the rest (so the download layer
// is cached). Docker cannot run here, so this copies exactly what the
// Dockerfile copies up to that step into an empty directory and runs the
// download there: it failed while go.mod's replace pointed at a
// ./third_party the stage had not copied.
func TestDockerfileStagesDownloadModules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	copies := copiesBeforeDownload(t, filepath.Join(root, "Dockerfile"))
	if len(copies) == 0 {
		t.Fatal("the Dockerfile's build stage has no COPY before RUN go mod download")
	}
	ignored := dockerIgnored(t, filepath.Join(root, ".dockerignore"))
	stage := t.TempDir()
	for _, c := range copies {
		for _, src := range c.srcs {
			dst := filepath.Join(stage, c.dst)
			if len(c.srcs) > 1 || strings.HasSuffix(c.dst, "/") {
				dst = filepath.Join(dst, filepath.Base(src))
			}
			copyTree(t, root, src, dst, ignored)
		}
	}
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = stage
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in the Dockerfile's stage (%v): %v\n%s", copies, err, out)
	}
}

type dockerCopy struct {
	srcs []string
	dst  string
}

// copiesBeforeDownload returns the COPY instructions (sources relative to
// the build context, destination relative to WORKDIR) of the first stage,
// up to its RUN go mod download.
func copiesBeforeDownload(t *testing.T, dockerfile string) []dockerCopy {
	f, err := os.Open(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []dockerCopy
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "RUN":
			if strings.Contains(sc.Text(), "go mod download") {
				return out
			}
		case "COPY":
			var args []string
			for _, a := range fields[1:] {
				if !strings.HasPrefix(a, "--") {
					args = append(args, a)
				}
			}
			if len(args) >= 2 {
				out = append(out, dockerCopy{srcs: args[:len(args)-1], dst: args[len(args)-1]})
			}
		}
	}
	t.Fatal("the Dockerfile never runs go mod download")
	return nil
}

// dockerIgnore is the .dockerignore of the build context: patterns in
// Docker's syntax (path.Match per segment, "**" for any number of
// segments, a leading "/" meaning the context's root). A pattern that
// matches a directory leaves out everything below it.
type dockerIgnore [][]string

func dockerIgnored(t *testing.T, path string) dockerIgnore {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out dockerIgnore
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			t.Fatalf(".dockerignore: exceptions (%s) are not understood by this test", line)
		}
		out = append(out, strings.Split(strings.Trim(filepath.ToSlash(line), "/"), "/"))
	}
	return out
}

// excludes reports whether rel (slash-separated, relative to the context)
// is left out of the build context.
func (d dockerIgnore) excludes(rel string) bool {
	segs := strings.Split(strings.Trim(filepath.ToSlash(rel), "/"), "/")
	for _, pat := range d {
		for n := 1; n <= len(segs); n++ {
			if matchSegments(pat, segs[:n]) {
				return true
			}
		}
	}
	return false
}

func matchSegments(pat, segs []string) bool {
	switch {
	case len(pat) == 0:
		return len(segs) == 0
	case pat[0] == "**":
		for i := 0; i <= len(segs); i++ {
			if matchSegments(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	case len(segs) == 0:
		return false
	}
	ok, err := path.Match(pat[0], segs[0])
	return err == nil && ok && matchSegments(pat[1:], segs[1:])
}

// copyTree copies the file or tree src of the build context root to dst,
// leaving out what .dockerignore keeps out of the context.
func copyTree(t *testing.T, root, src, dst string, ignored dockerIgnore) {
	t.Helper()
	from := filepath.Join(root, src)
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if inContext, _ := filepath.Rel(root, p); ignored.excludes(inContext) {
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(from, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", from, err)
	}
}
