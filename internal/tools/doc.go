// Package tools is the sidecar's tool model (SPEC §3): the Tool interface and
// its typed adapter, the Registry (modes, exposure tiers, sources, argument
// schemas), the tool.list views and strategies, and the one dispatch pipeline
// that tool.invoke, run_code's nested calls and the CLI all go through:
//
//  1. unknown name → a follow-up result with the closest non-hidden names;
//  2. arguments validated against the tool's JSON Schema (draft 2020-12);
//  3. approval (STEERABLE_APPROVALS=host) for local and destructive tools;
//  4. the tool runs with the request's context; a panic becomes a result;
//  5. data.durationMs is added to every result.
//
// A tool that fails returns a ToolResult the model can read, never a Go
// error: model-fixable failures set needsFollowup and say what to do next.
// Built-in tools are an explicit list (Builtins); host tools and plugins
// register through the same Registry.
package tools
