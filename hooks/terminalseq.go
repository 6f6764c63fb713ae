package hooks

import (
	"fmt"
	"strings"
)

// A hook's top-level terminalSequence asks the agent host to write an
// escape sequence to its terminal (a desktop notification, a window title,
// a bell). Hooks have no terminal of their own. Claude Code accepts only
// OSC 0, 1, 2 (titles), 9 (iTerm2, ConEmu, Windows Terminal, WezTerm
// notifications and progress), 99 (Kitty), 777 (urxvt, Ghostty, Warp) and a
// bare BEL, each OSC ended by BEL or ST, and ignores the field when the
// value holds anything else. wavehooks checks the same allowlist and
// passes an accepted value to the host as data (terminalSequences in the
// result, JSON-escaped on the wire): the server and `wavehooks run` never
// write it to a terminal, and --explain shows it escaped.

// allowedOSC are the OSC numbers a terminalSequence may use.
var allowedOSC = map[string]bool{"0": true, "1": true, "2": true, "9": true, "99": true, "777": true}

// checkTerminalSequence reports why seq is not one or more allowlisted
// sequences; "" when it is.
func checkTerminalSequence(seq string) string {
	if seq == "" {
		return "it is empty"
	}
	for rest := seq; rest != ""; {
		switch {
		case rest[0] == '\a':
			rest = rest[1:]
		case strings.HasPrefix(rest, "\x1b]"):
			body := rest[2:]
			end, endLen := -1, 0
			for i := 0; i < len(body); i++ {
				if body[i] == '\a' {
					end, endLen = i, 1
					break
				}
				if body[i] == '\x1b' {
					if i+1 < len(body) && body[i+1] == '\\' {
						end, endLen = i, 2
					}
					break
				}
			}
			if end < 0 {
				return "an OSC sequence is not ended by BEL or ST"
			}
			osc := body[:end]
			num, _, _ := strings.Cut(osc, ";")
			if !allowedOSC[num] {
				return fmt.Sprintf("OSC %q is not one of 0, 1, 2, 9, 99, 777", num)
			}
			for _, r := range osc {
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
					return "an OSC sequence holds a control character"
				}
			}
			rest = body[end+endLen:]
		default:
			return "it holds something other than OSC 0, 1, 2, 9, 99, 777 sequences and BEL"
		}
	}
	return ""
}
