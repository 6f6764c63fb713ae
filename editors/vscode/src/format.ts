// Text for the "Wave Hooks" output channel: each recorded event with every
// configured hook's story (matched or why not, skipped or ran, the stdin it
// received, its exit code, output and decision). Nearly all of it comes from
// a repository or a hook (commands, paths, reasons, output): each such text
// is escaped (safetext.ts), so that control, bidi and zero-width characters
// are shown, never acted on. No 'vscode' import: tested in Node.

import { safeBlock, safeLine as l } from './safetext';
import { EventRun, HookListing, HookRun, PendingPermission, RunHookResult, RunTestsResult } from './wire';

const INDENT = '      ';

/** Text of several lines (escaped with safeBlock), each line after prefix. */
function indent(text: string, prefix: string): string {
  return safeBlock(text)
    .replace(/\s+$/, '')
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/**
 * A hook's duration in nanoseconds. The field is nanoseconds, but some server
 * builds send Go's duration text ("4.62ms", "1m2.5s"): accept both.
 */
export function durationNs(d: number | string | undefined): number | undefined {
  if (typeof d === 'number') {
    return d;
  }
  if (typeof d !== 'string' || d === '') {
    return undefined;
  }
  let total = 0;
  let rest = d.trim();
  while (rest !== '') {
    const m = /^(\d+(?:\.\d*)?)(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (!m) {
      return undefined;
    }
    total += parseFloat(m[1]) * UNIT_NS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return total;
}

function ms(d: number | string | undefined): string {
  const ns = durationNs(d);
  if (ns === undefined) {
    return String(d ?? '?');
  }
  const v = ns / 1e6;
  if (v >= 1000) {
    return `${(v / 1000).toFixed(v >= 10_000 ? 0 : 1)} s`;
  }
  return v < 10 ? `${v.toFixed(1)} ms` : `${Math.round(v)} ms`;
}

function time(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) {
    return iso;
  }
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Pretty-prints JSON text; other text is returned as it is. */
export function prettyJSON(text: string): string {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) {
    return text;
  }
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return text;
  }
}

/** One configured hook's part of an event. */
export function formatHookRun(h: HookRun, n: number): string {
  const lines: string[] = [];
  const matcher = h.matcher === '' ? '(no matcher)' : `matcher "${l(h.matcher)}"`;
  lines.push(`  hook ${n}: ${l(h.command)}`);
  lines.push(`    from ${l(h.source)} settings ${l(h.file)}`);
  lines.push(`    ${matcher}: ${h.matched ? 'matched' : 'did not match'}${h.why ? ` (${l(h.why)})` : ''}`);
  if (h.statusMessage) {
    lines.push(`    status message: ${l(h.statusMessage)}`);
  }
  if (h.skipped) {
    lines.push(`    skipped: ${l(h.skipped)}`);
  }
  if (h.ran) {
    const exit = h.timedOut ? `timed out after ${ms(h.durationNs)}` : `exit ${h.exitCode} in ${ms(h.durationNs)}`;
    lines.push(`    ran: ${exit}${h.json ? ', stdout read as JSON' : ''}`);
    if (h.stdout.trim() !== '') {
      lines.push(`    stdout${h.stdoutTruncated ? ' (truncated)' : ''}:`, indent(h.stdout, INDENT));
    }
    if (h.stderr.trim() !== '') {
      lines.push(`    stderr${h.stderrTruncated ? ' (truncated)' : ''}:`, indent(h.stderr, INDENT));
    }
  } else if (h.matched && !h.skipped) {
    lines.push('    did not run');
  }
  for (const p of h.problems ?? []) {
    lines.push(`    problem: ${l(p)}`);
  }
  if (h.decision) {
    lines.push(`    decision: ${l(h.decision)}`);
  }
  return lines.join('\n');
}

/** One recorded event, as the output channel shows it. */
export function formatEventRun(run: EventRun): string {
  const on = run.matchValue ? ` (${l(run.matchValue)})` : '';
  const session = run.sessionId ? ` session ${l(run.sessionId)}` : ' (run by hand)';
  // A run another process (the ACP proxy) wrote to the run log: its id is that process's.
  const origin = run.origin ? ` [${run.origin === 'runLog' ? 'ACP proxy / run log' : l(run.origin)}]` : '';
  const lines = [`[${time(run.time)}] #${run.id} ${l(run.event)}${on}${session}${origin} → ${l(run.outcome || 'no opinion')}`];
  if (run.hooks.length === 0) {
    lines.push('  no hook is configured for this event');
  }
  run.hooks.forEach((h, i) => lines.push(formatHookRun(h, i + 1)));
  if (run.stdin.trim() !== '') {
    lines.push('  stdin:', indent(prettyJSON(run.stdin), '    '));
  }
  return lines.join('\n') + '\n';
}

/** What "Run hook" did with sample input. */
export function formatRunHookResult(r: RunHookResult): string {
  const lines = [`Ran ${l(r.event)} hook \`${l(r.command)}\` with sample input → ${l(r.outcome)}`];
  if (r.run) {
    lines.push(formatHookRun(r.run, 1));
  }
  if (r.stdin.trim() !== '') {
    lines.push('  stdin:', indent(prettyJSON(r.stdin), '    '));
  }
  return lines.join('\n') + '\n';
}

/** What "▶ Run tests" did with a hook test case file: one line per case, the failures under it, the count last. */
export function formatRunTestsResult(r: RunTestsResult): string {
  const lines = [`Hook tests of ${l(r.file)}`];
  for (const n of r.notes) {
    lines.push(`  ${l(n)}`);
  }
  if (r.error) {
    lines.push(`  not run: ${l(r.error)}`);
    return lines.join('\n') + '\n';
  }
  for (const c of r.cases) {
    lines.push(`  ${c.passed ? 'PASS' : 'FAIL'} ${l(c.name)} (line ${c.line + 1})`);
    for (const f of c.failures) {
      lines.push(`       ${l(f)}`);
    }
  }
  lines.push(`  ${r.passed} passed, ${r.failed} failed`);
  return lines.join('\n') + '\n';
}

/** A configured hook in the Toggle Hook quick pick. */
export function describeHook(h: HookListing): { label: string; description: string; detail: string } {
  return {
    label: `${h.managed ? '$(lock) managed' : h.enabled ? '$(pass-filled) on' : '$(circle-slash) off'}  ${l(h.command)}`,
    description: l(
      `${h.event}${h.matcher ? ` (${h.matcher})` : ''}, ${h.source}${h.drift ? `, ${h.drift} outside wavehooks` : ''}${h.why ? `: ${h.why}` : ''}`,
    ),
    detail: l(`${h.file}:${h.line}  id ${h.id}`),
  };
}

/** A pending ask in a quick pick. */
export function describePending(p: PendingPermission): { label: string; detail: string } {
  let input = '';
  try {
    input = JSON.stringify(p.toolInput);
  } catch {
    input = String(p.toolInput);
  }
  if (input.length > 200) {
    input = input.slice(0, 197) + '...';
  }
  return {
    label: l(`${p.toolName}${p.reason ? `: ${p.reason}` : ''}`),
    detail: l(`${input}  (session ${p.sessionId}, ${p.id})`),
  };
}
