// Command echo is the throughput reference of the core benchmark: a bare
// newline-JSON loop that answers every request line with a null result (or
// with the JSON given as its argument: the same bytes the sidecar answers
// with), with no JSON-RPC library, validation or dispatch — the ceiling a
// stdio JSON-RPC server can reach over the same pipe.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

func main() {
	result := "null"
	if len(os.Args) > 1 {
		result = os.Args[1]
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := bufio.NewWriter(os.Stdout)
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	for in.Scan() {
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		out.WriteString(`{"jsonrpc":"2.0","id":`)
		out.Write(req.ID)
		out.WriteString(`,"result":`)
		out.WriteString(result)
		out.WriteString("}\n")
		out.Flush() // one write per reply, as the sidecar does
	}
}
