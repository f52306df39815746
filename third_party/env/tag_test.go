package env

import (
	"reflect"
	"testing"
)

// FuzzTagLookup: tagLookup finds what reflect.StructTag.Lookup finds, for
// any tag and key.
func FuzzTagLookup(f *testing.F) {
	for _, s := range []string{`env:"A" envDefault:"1" help:"x \"y\" z"`, `a:"\\" b:"c"`, `a:"x`, `a:"\x41" b:""`,
		`k:"v\\\\" z:"w"`, ` a:"b"  c:"d"`, "a:\"\xea\"", "a:\"x\ny\"", `a:"b"c:"d"`, `:"x" a:"y"`} {
		f.Add(s, "a")
		f.Add(s, "envDefault")
	}
	f.Fuzz(func(t *testing.T, tag, key string) {
		v, ok := tagLookup(reflect.StructTag(tag), key)
		want, wantOK := reflect.StructTag(tag).Lookup(key)
		if v != want || ok != wantOK {
			t.Fatalf("tag %q key %q: tagLookup %q %v, reflect %q %v", tag, key, v, ok, want, wantOK)
		}
	})
}
