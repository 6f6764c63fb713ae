package settings

// typeKeyDocs explain the keys of the hook types and their options, and
// the http hook policy keys, for hover and completion (added to KeyDocs).
var typeKeyDocs = map[string]string{
	"asyncRewake":            "`true` runs a command hook in the background (it implies `async`) and, when it exits 2, wakes the agent: its stderr (stdout if stderr is empty) is added to the conversation for the model at once.",
	"shell":                  "The shell that runs a command hook's `command`: `bash`, `sh` (the default), `zsh`, `powershell` or `pwsh`. Ignored with `args`.",
	"once":                   "`true` runs the hook at most once per session (ignored in Claude Code's own settings files, as Claude Code ignores it there).",
	"url":                    "http hooks: the URL the event's JSON is POSTed to (`Content-Type: application/json`). The response body is the hook's JSON answer; a non-2xx status, a body that is not a JSON object, a failed connection or a timeout is a non-blocking error. Redirects are not followed.",
	"headers":                "http hooks: extra request headers, an object of strings. Values may use `$VAR` / `${VAR}` for the variables listed in `allowedEnvVars`; other references become empty.",
	"allowedEnvVars":         "http hooks: the environment variables the `headers` may read, e.g. `[\"MY_TOKEN\"]`.",
	"prompt":                 "prompt and agent hooks: what the model is asked. `$ARGUMENTS` is replaced by the event's JSON input (appended when absent); `\\$` is a literal `$`. The model answers `{\"ok\": true}` or `{\"ok\": false, \"reason\": \"…\"}`. Evaluated by the editor's agent (wave/evaluateHook).",
	"model":                  "prompt and agent hooks: the model to use; default the agent host's fast model.",
	"continueOnBlock":        "prompt hooks: on PreToolUse and PostToolUse, `ok: false` feeds the reason back to the model instead of ending the turn.",
	"server":                 "mcp_tool hooks: the name of one of the agent's connected MCP servers.",
	"tool":                   "mcp_tool hooks: the tool to call; its text result is read like a command hook's stdout.",
	"input":                  "mcp_tool hooks: the tool's arguments; strings may use `${tool_input.file_path}`-style references into the event's JSON input.",
	"onFailure":              "command, http and mcp_tool hooks: what a failure of the hook does — it could not start (a missing script), could not run because no agent host serves its type (an mcp_tool hook under `wavehooks run` or the ACP proxy), timed out, exited with a code other than 0 or 2, or printed JSON that is invalid or fails validation. `continue` (default): the failure is reported and the action goes ahead. `block`: the failure counts as exit code 2, so the action the event guards (a tool call, a permission request, a prompt) is blocked. Ignored for async hooks and on Stop, SubagentStop, TaskCompleted and TeammateIdle.",
	"allowedHttpHookUrls":    "URL patterns http hooks may post to, matched part by part: scheme (`http`, `https`, `*`), host (`*` stays inside one label: `*.corp.example` is not `corp.example` nor `a.b.corp.example`; `*` alone is any host), port (a number, `*`, or none for the scheme's default) and path (`*` is anything, `/` included). A URL with `user@` or a `..` segment is never admitted. Lists of several files are joined; one in the managed settings file is the only list. Unset: any URL; empty: none.",
	"httpHookAllowedEnvVars": "Environment variables any http hook's headers may read, on top of each hook's own `allowedEnvVars`.",
}

// joinKeyDocs is one map of every key's doc; a key of a later map replaces
// the same key of an earlier one.
func joinKeyDocs(docs ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, d := range docs {
		for k, v := range d {
			out[k] = v
		}
	}
	return out
}
