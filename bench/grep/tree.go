package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The generated tree: 20,000 searched files (~300 MB) of code-like text in
// 2,000 directories, a .git directory (so ripgrep applies the .gitignore),
// and ignored content both tools must skip: node_modules/, build/ and
// *.log files. The needles are planted at fixed rates so every figure
// measures the same work in both columns.
const (
	treeVersion = "grep-tree-v1"
	topDirs     = 20
	subDirs     = 10
	leafDirs    = 10
	filesPerDir = 10
)

var exts = []string{".go", ".go", ".go", ".ts", ".py", ".md", ".json", ".rs", ".java", ".txt"}

// makeTree writes the tree under dir unless a finished one is there.
func makeTree(dir string) error {
	marker := filepath.Join(dir, ".bench-complete")
	if b, err := os.ReadFile(marker); err == nil && string(b) == treeVersion {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(17, 20000))
	for _, d := range []string{".git/info", "node_modules/pkg", "build/out"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	gitignore := "node_modules/\n/build/\n*.log\n!keep.log\n"
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(gitignore), 0o644); err != nil {
		return err
	}
	for i := range topDirs * subDirs * leafDirs {
		leaf := filepath.Join(dir, fmt.Sprintf("mod%02d", i/(subDirs*leafDirs)), fmt.Sprintf("pkg%d", i/leafDirs%subDirs), fmt.Sprintf("part%d", i%leafDirs))
		if err := os.MkdirAll(leaf, 0o755); err != nil {
			return err
		}
		for j := range filesPerDir {
			name := fmt.Sprintf("file%d%s", j, exts[(i+j)%len(exts)])
			if err := writeFile(filepath.Join(leaf, name), rng, 2_000+rng.IntN(28_000)); err != nil {
				return err
			}
		}
		if i%10 == 0 { // ignored: a log next to the sources
			if err := writeFile(filepath.Join(leaf, "run.log"), rng, 20_000); err != nil {
				return err
			}
		}
	}
	for j := range 1000 {
		if err := writeFile(filepath.Join(dir, "node_modules/pkg", fmt.Sprintf("m%d.js", j)), rng, 15_000); err != nil {
			return err
		}
	}
	for j := range 500 {
		if err := writeFile(filepath.Join(dir, "build/out", fmt.Sprintf("o%d.go", j)), rng, 15_000); err != nil {
			return err
		}
	}
	return os.WriteFile(marker, []byte(treeVersion), 0o644)
}

var words = strings.Fields(`context value error result buffer config handler request response server client
	reader writer stream token parser lexer index table cache store record entry field method option state
	count total limit offset length width height begin end start stop open close read write flush sync lock
	user group path name type kind mode flag spec node tree graph edge list map set queue stack heap item`)

// writeFile writes about size bytes of code-like lines. Needles: about 1
// line in 4,000 holds "parseConfig", 1 in 3,000 a "func …Handler(", 1 in
// 2,500 an upper-case code like ERR_404, and 1 file in 3 a "TODO".
func writeFile(path string, rng *rand.Rand, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	todo := rng.IntN(3) == 0
	for n := 0; n < size; {
		line := codeLine(rng)
		switch r := rng.IntN(12_000); {
		case r < 3:
			line = "\tcfg, err := parseConfig(" + word(rng) + ")"
		case r < 7:
			line = "func " + title(word(rng)) + "Handler(w http.ResponseWriter, r *http.Request) {"
		case r < 12:
			line = fmt.Sprintf("\treturn %s_%03d // %s", strings.ToUpper(word(rng)), rng.IntN(1000), word(rng))
		case r < 40 && todo:
			line = "\t// TODO: " + word(rng) + " the " + word(rng)
		}
		w.WriteString(line)
		w.WriteByte('\n')
		n += len(line) + 1
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func word(rng *rand.Rand) string { return words[rng.IntN(len(words))] }

func codeLine(rng *rand.Rand) string {
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("\t%s := %s.%s(%s, %d)", word(rng), word(rng), title(word(rng)), word(rng), rng.IntN(100))
	case 1:
		return fmt.Sprintf("\tif %s != nil {", word(rng))
	case 2:
		return "\t\treturn " + word(rng) + ", err"
	case 3:
		return "\t}"
	case 4:
		return fmt.Sprintf("// %s %s the %s of the %s", title(word(rng)), word(rng), word(rng), word(rng))
	}
	return fmt.Sprintf("\t%s.%s = append(%s.%s, %s)", word(rng), title(word(rng)), word(rng), title(word(rng)), word(rng))
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
