package plugins

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"steerable.dev/sidecar/internal/spelling"
)

// A plugin entry is the user's file, often copied from another MCP
// client's configuration. A key this sidecar does not know is an error
// naming the nearest known one, since a misspelt "comand" or "sandobx"
// would otherwise be dropped without a word; the keys other clients write
// for their own use are known, and each is read, ignored or refused below
// (the README's table says which and why).

// readKeys are the entry keys this sidecar reads ("type" and
// "transportType" only to refuse a remote server).
var readKeys = []string{"command", "args", "env", "cwd", "toolPrefix", "exposure", "sandbox", "disabled", "type", "transportType"}

// ignoredKeys are other clients' settings for their own side of the
// connection (approval shortcuts, their call timeout, a description):
// accepted and logged, since the sidecar's own approvals and
// STEERABLE_PLUGIN_CALL_TIMEOUT_MS apply instead.
var ignoredKeys = []string{"autoApprove", "alwaysAllow", "trust", "timeout", "description"}

// remoteKeys describe a server reached over the network, which cannot be
// a plugin.
var remoteKeys = []string{"url", "serverUrl", "httpUrl", "headers"}

// refusedKeys are known keys whose meaning the sidecar cannot honour and
// must not ignore: the server would start without the variables of an
// envFile, or offer tools a filter meant to hide.
var refusedKeys = map[string]string{
	"envFile":       `"envFile" is not read; put its variables in "env" (${env:NAME} for a secret)`,
	"disabledTools": `"disabledTools" is not supported: every tool of a plugin registers; remove the key, or the plugin`,
	"includeTools":  `"includeTools" is not supported: every tool of a plugin registers; remove the key, or the plugin`,
	"excludeTools":  `"excludeTools" is not supported: every tool of a plugin registers; remove the key, or the plugin`,
}

// checkEntryKeys sorts the keys of an entry: it returns the ignored ones, or
// the error for a remote server, a refused key or an unknown one.
func checkEntryKeys(fields map[string]json.RawMessage) (ignored []string, err error) {
	if err := refuseRemote(fields); err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if msg, ok := refusedKeys[k]; ok {
			return nil, fmt.Errorf("%s", msg)
		}
		if slices.Contains(ignoredKeys, k) {
			ignored = append(ignored, k)
		}
	}
	known := slices.Concat(readKeys, ignoredKeys, remoteKeys, slices.Sorted(maps.Keys(refusedKeys)))
	if err := unknownKeys(fields, known, readKeys); err != nil {
		return nil, err
	}
	return ignored, nil
}

// refuseRemote names what a URL entry is: a server this sidecar cannot
// start.
func refuseRemote(fields map[string]json.RawMessage) error {
	var typ, transport string
	if err := field(fields, "type", &typ, `"stdio"`); err != nil {
		return err
	}
	if err := field(fields, "transportType", &transport, `"stdio"`); err != nil {
		return err
	}
	if typ == "" {
		typ = transport
	}
	remote := slices.ContainsFunc(remoteKeys, func(k string) bool { _, ok := fields[k]; return ok })
	if remote || (typ != "" && typ != "stdio") || (transport != "" && transport != "stdio") {
		return fmt.Errorf("this is a remote MCP server (type %q, url); only stdio servers, started from \"command\", can be plugins", typ)
	}
	return nil
}

// unknownKeys is the error for the keys of fields not in known, each with
// the nearest known key; listed names the keys worth showing in full.
func unknownKeys(fields map[string]json.RawMessage, known, listed []string) error {
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if slices.Contains(known, k) {
			continue
		}
		desc := fmt.Sprintf("%q", k)
		if near := spelling.Nearest(k, known); near != "" {
			desc += fmt.Sprintf(" (did you mean %q?)", near)
		}
		bad = append(bad, desc)
	}
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("unknown key %s; the keys are %s", bad[0], strings.Join(listed, ", "))
	}
	return fmt.Errorf("unknown keys %s; the keys are %s", strings.Join(bad, ", "), strings.Join(listed, ", "))
}
