package sandbox

import (
	"strings"
)

// A credential does not always sit in a variable whose name says so:
// GIT_ASKPASS_HELPER_ARG=ghp_…, CI_EXTRA="--token glpat-…", a kubeconfig
// pasted into SOMETHING_B64. The scrub also looks at values, for the shapes
// the big issuers give their keys. Each shape is anchored at both ends of
// a word of the value (words are split at white space and at = : , ; and
// quotes and brackets, never at / or ., so a path is one word and a file
// named sk-… inside it is not a word of its own) and needs the issuer's
// length and alphabet, so ordinary values — PATH, LS_COLORS, a locale, a
// file name with sk- in it — stay.

// secretShaped reports whether value holds a well-known secret shape: a
// word that is a token of a known issuer, a PEM private-key block, a
// bearer credential, or a URL with userinfo.
func secretShaped(value string) bool {
	if len(value) < minSecretLen {
		return false
	}
	if hasPrivateKeyBlock(value) || hasBearer(value) || hasUserinfo(value) {
		return true
	}
	for w := range strings.FieldsFuncSeq(value, isWordSeparator) {
		if secretWord(w) {
			return true
		}
	}
	if strings.Contains(value, "://") {
		for u := range strings.FieldsFuncSeq(value, isURLSeparator) {
			if hasUserinfo(u) {
				return true
			}
		}
	}
	return false
}

// isURLSeparator splits a value into URLs, which hold ':' themselves.
func isURLSeparator(r rune) bool { return r != ':' && isWordSeparator(r) }

// minSecretLen is the shortest value a shape can match (an AWS key id).
const minSecretLen = 20

func isWordSeparator(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', '=', ':', ',', ';', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', '|', '&':
		return true
	}
	return false
}

// tokenShape is one issuer's token: a prefix, then at least min (and at
// most max, 0 = no bound) characters of its alphabet, with a digit among
// them where the issuer's tokens always have one and the prefix alone is
// a common word start (sk-, xoxb-).
type tokenShape struct {
	prefix     string
	min, max   int
	alphabet   func(byte) bool
	needsDigit bool
}

// tokenShapes are the issuers' formats (their documentation, and the
// secret scanners of GitHub and GitLab that match the same shapes).
var tokenShapes = []tokenShape{
	{"ghp_", 30, 0, isAlnum, false}, // GitHub: personal, OAuth, user-to-server, server, refresh
	{"gho_", 30, 0, isAlnum, false},
	{"ghu_", 30, 0, isAlnum, false},
	{"ghs_", 30, 0, isAlnum, false},
	{"ghr_", 30, 0, isAlnum, false},
	{"github_pat_", 30, 0, isAlnumUnderscore, false},
	{"glpat-", 20, 0, isBase64URL, false}, // GitLab personal access token
	{"xoxa-", 10, 0, isAlnumDash, true},   // Slack
	{"xoxb-", 10, 0, isAlnumDash, true},
	{"xoxp-", 10, 0, isAlnumDash, true},
	{"xoxr-", 10, 0, isAlnumDash, true},
	{"xoxs-", 10, 0, isAlnumDash, true},
	{"sk-", 20, 0, isBase64URL, true}, // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), and their imitators
	{"hf_", 30, 0, isAlnum, false},    // Hugging Face
	{"npm_", 30, 0, isAlnum, false},   // npm
	{"AKIA", 16, 16, isUpperDigit, false},
	{"ASIA", 16, 16, isUpperDigit, false}, // AWS access key ids (long-term, temporary)
	{"AIza", 35, 35, isBase64URL, false},  // Google API keys
}

// secretWord reports whether w, a whole word, is a known token or a JWT.
func secretWord(w string) bool {
	if len(w) < minSecretLen {
		return false
	}
	if strings.HasPrefix(w, "eyJ") {
		return isJWT(w)
	}
	for _, s := range tokenShapes {
		if rest, ok := strings.CutPrefix(w, s.prefix); ok && s.fits(rest) {
			return true
		}
	}
	return false
}

func (s tokenShape) fits(rest string) bool {
	if len(rest) < s.min || (s.max > 0 && len(rest) > s.max) {
		return false
	}
	digit := false
	for i := 0; i < len(rest); i++ {
		if !s.alphabet(rest[i]) {
			return false
		}
		digit = digit || isDigit(rest[i])
	}
	return digit || !s.needsDigit
}

// isJWT: a JWS in compact form whose header is a JSON object ("eyJ" is
// base64url of `{"`): three base64url parts, the first two of plausible
// length, the signature possibly empty (alg none).
func isJWT(w string) bool {
	parts := strings.Split(w, ".")
	if len(parts) != 3 || len(parts[0]) < 10 || len(parts[1]) < 10 {
		return false
	}
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			if !isBase64URL(p[i]) {
				return false
			}
		}
	}
	return true
}

// hasPrivateKeyBlock: a PEM header of any private key ("-----BEGIN RSA
// PRIVATE KEY-----", OPENSSH, EC, ENCRYPTED, "PGP PRIVATE KEY BLOCK").
func hasPrivateKeyBlock(v string) bool {
	for {
		i := strings.Index(v, "-----BEGIN ")
		if i < 0 {
			return false
		}
		v = v[i+len("-----BEGIN "):]
		end := strings.Index(v, "-----")
		if end < 0 {
			return false
		}
		if strings.Contains(v[:end], "PRIVATE KEY") {
			return true
		}
		v = v[end:]
	}
}

// hasBearer: an HTTP bearer credential ("Bearer <token>", any case) with a
// token of plausible length.
func hasBearer(v string) bool {
	for {
		i := indexFold(v, "bearer ")
		if i < 0 {
			return false
		}
		v = strings.TrimLeft(v[i+len("bearer "):], " ")
		n := 0
		for n < len(v) && (isBase64URL(v[n]) || strings.IndexByte(".~+/=", v[n]) >= 0) {
			n++
		}
		if n >= 16 {
			return true
		}
	}
}

// indexFold is strings.Index for an ASCII lower-case needle, ignoring case.
func indexFold(s, lower string) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		if s[i]|0x20 == lower[0] && strings.EqualFold(s[i:i+len(lower)], lower) {
			return i
		}
	}
	return -1
}

func isDigit(c byte) bool           { return c >= '0' && c <= '9' }
func isUpperDigit(c byte) bool      { return (c >= 'A' && c <= 'Z') || isDigit(c) }
func isAlnum(c byte) bool           { return isUpperDigit(c) || (c >= 'a' && c <= 'z') }
func isAlnumUnderscore(c byte) bool { return isAlnum(c) || c == '_' }
func isAlnumDash(c byte) bool       { return isAlnum(c) || c == '-' }
func isBase64URL(c byte) bool       { return isAlnum(c) || c == '-' || c == '_' }
