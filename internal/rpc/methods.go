package rpc

import (
	"context"
	"encoding/json"

	"steerable.dev/sidecar/protocol"
)

// method is one entry of the method table.
type method struct {
	// params names the schema in protocol/schema that the params must
	// satisfy; "" means the method takes none.
	params string
	// fast, when set, reads params exactly as the schema accepts them and
	// decodes them in the same pass; it answers false whenever it is not
	// sure, and the schema then decides (and names what is wrong).
	fast func(raw json.RawMessage) (any, bool)
	// decode decodes params the schema has accepted.
	decode func(raw json.RawMessage) (any, error)
	handle func(ctx context.Context, s *Server, params any) (any, error)
	// system methods bypass the in-flight cap and are still served while
	// the sidecar shuts down.
	system bool
	// afterReply runs once the reply has been written.
	afterReply func(s *Server)
	// onReader, when set, answers on the read loop itself, with no worker,
	// context or slot, for a method that is cheap and can neither block
	// nor be cancelled; ok false sends the request the usual way (handle)
	// this time. Its params are checked first, as handle's.
	onReader func(s *Server) (result any, ok bool)
}

// methodTable is every host → sidecar method (SPEC §2), in one place.
func methodTable() map[string]method {
	return withCheckpointMethods(map[string]method{
		protocol.MethodPing:          onReader(system(noParams(ping), nil), pingOnReader),
		protocol.MethodShutdown:      system(noParams(shutdown), func(s *Server) { s.beginShutdown(ReasonNormal) }),
		protocol.MethodShutdownNow:   system(noParams(shutdown), func(s *Server) { s.ShutdownNow(ReasonShutdownNow) }),
		protocol.MethodToolList:      withParams("tool.list.params.json", nil, toolList),
		protocol.MethodToolInvoke:    withParams("tool.invoke.params.json", fastToolInvoke, toolInvoke),
		protocol.MethodHostToolsReg:  withParams("host_tools.register.params.json", nil, hostToolsRegister),
		protocol.MethodPluginList:    noParams(pluginList),
		protocol.MethodPluginEnable:  withParams("plugin.params.json", nil, pluginEnable),
		protocol.MethodPluginDisable: withParams("plugin.params.json", nil, pluginDisable),
		protocol.MethodPluginUnload:  withParams("plugin.params.json", nil, pluginUnload),
		protocol.MethodPluginReload:  withParams("plugin.params.json", nil, pluginReload),
		protocol.MethodReadStateSeed: withParams("read_state.seed.params.json", nil, readStateSeed),
		protocol.MethodReadStateGet:  noParams(readStateGet),
		protocol.MethodSessionList:   noParams(sessionList),
		protocol.MethodSessionClose:  withParams("session.close.params.json", nil, sessionClose),
		protocol.MethodTodoList:      withParams("todo.list.params.json", nil, todoList),
	})
}

// knownMethods maps every method name to itself, so the frame reader can
// reuse these strings instead of allocating one per frame.
var knownMethods = func() map[string]string {
	names := map[string]string{protocol.NotificationCancel: protocol.NotificationCancel}
	for name := range methodTable() {
		names[name] = name
	}
	return names
}()

func noParams(fn func(ctx context.Context, s *Server) (any, error)) method {
	return method{handle: func(ctx context.Context, s *Server, _ any) (any, error) { return fn(ctx, s) }}
}

func system(m method, afterReply func(*Server)) method {
	m.system, m.afterReply = true, afterReply
	return m
}

func onReader(m method, fn func(*Server) (any, bool)) method {
	m.onReader = fn
	return m
}

// withParams is a method whose params are checked against schema and
// decoded into P (by fast when it accepts them, else by encoding/json after
// the schema has: the two cannot disagree).
func withParams[P any](schema string, fast func(json.RawMessage) (P, bool), fn func(context.Context, *Server, P) (any, error)) method {
	m := method{
		params: schema,
		decode: func(raw json.RawMessage) (any, error) {
			var p P
			err := json.Unmarshal(raw, &p)
			return p, err
		},
		handle: func(ctx context.Context, s *Server, p any) (any, error) { return fn(ctx, s, p.(P)) },
	}
	if fast != nil {
		m.fast = func(raw json.RawMessage) (any, bool) { return fast(raw) }
	}
	return m
}
