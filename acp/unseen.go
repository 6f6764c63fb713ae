package acp

import "github.com/wavehooks/wavehooks/internal/safetext"

// tellUnseen tells the editor, once per session, that a tool ran where no
// PreToolUse hook could decide on it: the agent neither asked permission nor
// went through a file or terminal request before the tool call finished (an
// agent's own reads, a mode that does not ask, such as codex-acp's
// full-access or the commands its read-only and auto modes run in the
// sandbox). The transcript and the run history record every such tool
// (uncheckedTool); the user, who may believe a deny rule guards them, is told
// in the agent's reply, where every client shows it, and not only on stderr,
// which most clients hide. Once per session: a warning on every read would
// drown the conversation.
func (p *Proxy) tellUnseen(st *sessState, name string) {
	if !st.unseenTold.CompareAndSwap(false, true) {
		return
	}
	p.notice(st, levelWarning, safetext.Line(name, 200)+" ran without a permission request, so no wavehooks PreToolUse hook could decide on it: "+
		"the agent did not ask before running it. In the agent's current mode, tools it runs without asking are not "+
		"guarded by your PreToolUse hooks; choose a mode in which it asks to have them decide. "+
		"This is said once per session; `wavehooks log --session "+safetext.Line(st.session().ID(), 200)+"` lists each such tool "+
		"(\"not enforced: ran without a permission request\").")
}
