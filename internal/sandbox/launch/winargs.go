package launch

import "strings"

// msysCommandLine is the Windows command line for args that a program of
// the MSYS2 or Cygwin runtime (Git for Windows' bash.exe) parses back into
// exactly args. That runtime does not parse like Microsoft's C runtime
// (which os/exec's quoting targets): started from a Windows process, it
// treats both quote characters, takes a backslash inside double quotes as
// escaping the next character (so "\\" is one backslash, where Microsoft
// keeps two), expands wildcards and braces in unquoted words against the
// current directory, and reads an unquoted @word as a file of more
// arguments. So every argument after the program is double-quoted with
// each backslash and double quote escaped: nothing is left unquoted, and
// bash -c receives the command byte for byte. The program itself (argv[0])
// is quoted without escapes, as the runtime strips the first word's quotes
// only; a path holds no double quote.
func msysCommandLine(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		if i == 0 {
			b.WriteString(a)
		} else {
			for j := 0; j < len(a); j++ {
				if a[j] == '\\' || a[j] == '"' {
					b.WriteByte('\\')
				}
				b.WriteByte(a[j])
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}
