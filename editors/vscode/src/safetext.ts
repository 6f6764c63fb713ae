// Text from a repository or a hook (commands, status messages, a hook's
// output, paths) made safe to show: the same rules as the server's
// internal/safetext. Control characters (C0, DEL, C1: ESC and BEL start the
// terminal sequences that write the clipboard or clear the screen), the
// invisible format characters that reorder or hide text (bidi overrides and
// isolates, zero-width characters, U+FEFF), line and paragraph separators
// and lone surrogates are shown as escapes (\n, \u001b, \u202e), so that
// what is shown is what the text says. No 'vscode' import: tested in Node.

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

function escape(ch: string): string {
  switch (ch) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
  }
  const cp = ch.codePointAt(0) ?? 0;
  return cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** One line: every unsafe character escaped, newlines and tabs included. */
export function safeLine(s: string): string {
  return s.replace(UNSAFE, escape);
}

/** Several lines (a hook's stdout or stderr): newlines and tabs kept, every other unsafe character escaped. */
export function safeBlock(s: string): string {
  return s.replace(UNSAFE, (ch) => (ch === '\n' || ch === '\t' ? ch : escape(ch)));
}
