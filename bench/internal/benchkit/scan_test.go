package benchkit

import (
	"encoding/json"
	"testing"
)

var peekSeeds = []string{
	`{"jsonrpc":"2.0","id":7,"result":{"status":"ok","checks":{"a":{"message":"\"id\":9 } ]"}}}}`,
	`{"jsonrpc":"2.0","result":{"x":[1,{"y":"}"}]},"id":12}`,
	`{"jsonrpc":"2.0","method":"lifecycle.ready","params":{}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
	`{"jsonrpc":"2.0","id":"srv_1","method":"ask_user.request","params":{}}`,
	`{ "id" : 3 , "result" : true }`, `{}`, `stray output`, `{"id":1`, `{"id":1.5,"result":1}`, `{"method":"a\u0062"}`, `[1]`,
}

// FuzzPeek: on every line encoding/json reads into a header, peek reads the
// same id and method.
func FuzzPeek(f *testing.F) {
	for _, s := range peekSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var want header
		if json.Unmarshal(line, &want) != nil {
			return
		}
		got, ok := peek(line)
		if !ok {
			t.Fatalf("peek(%q) refused a line encoding/json reads", line)
		}
		if !samePtr(got.ID, want.ID) || !samePtr(got.Method, want.Method) {
			t.Fatalf("peek(%q) = %v %v, encoding/json %v %v", line, deref(got.ID), deref(got.Method), deref(want.ID), deref(want.Method))
		}
	})
}

func samePtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestPeekSkipsStrayLines(t *testing.T) {
	for _, line := range []string{"stray output", `{"id":1`, "", `[1]`} {
		if _, ok := peek([]byte(line)); ok {
			t.Errorf("peek(%q) accepted", line)
		}
	}
}

// BenchmarkPeekHealth is the client's cost per system.ping reply.
func BenchmarkPeekHealth(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":123,"result":{"status":"ok","version":"0.1.0","protocolVersion":"0.1.0","uptimeMs":40,"pid":4242,"goVersion":"go1.26.8","platform":"linux/amd64","loadedTools":8,"droppedLogLines":0,"checks":{"ask_user":{"status":"ok","message":"questions go to the host (ask_user.request); waits for the answers"},"config":{"status":"ok","message":"configuration valid"},"files":{"status":"ok","message":"workspace /tmp/ws, paths confined to it"},"plugins":{"status":"ok","message":"no plugin sources configured"},"sandbox":{"status":"ok","message":"backend bwrap, enforcement full, network off"},"web":{"status":"ok","message":"web_fetch registered; web_search not registered (no STEERABLE_WEB_SEARCH_API_KEY, TAVILY_API_KEY or STEERABLE_WEB_SEARCH_PROVIDER); direct egress"}}}}`)
	for b.Loop() {
		peek(line)
	}
}
