package telemetry

import (
	"context"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/trace"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// The names of what is exported. Attributes Claude Code's own telemetry
// has are named as it names them (session.id, event.name, tool_name,
// decision, source, duration_ms, success); wavehooks' own are under
// "wavehooks.". docs/telemetry.md has the table.
const (
	// EventToolDecision is the log event of a tool event's decision
	// (PreToolUse, PermissionRequest, …: events matched on tool_name);
	// Claude Code's claude_code.tool_decision.
	EventToolDecision = "wavehooks.tool_decision"
	// EventHookDecision is the log event of any other event's decision.
	EventHookDecision = "wavehooks.hook_decision"
	// EventHookRun is the log event of one hook that ran.
	EventHookRun = "wavehooks.hook_run"
	// SpanEvent is the span of one event's hooks, from the first hook's
	// start to the decision.
	SpanEvent = "wavehooks.hook_event"
	// SpanHook is the span of one hook that ran, a child of its event's.
	SpanHook = "wavehooks.hook"

	attrEventName   = "event.name"
	attrTimestamp   = "event.timestamp"
	attrSession     = "session.id"
	attrHookEvent   = "hook_event_name"
	attrToolName    = "tool_name"
	attrDecision    = "decision"
	attrSource      = "source"
	attrDurationMs  = "duration_ms"
	attrSuccess     = "success"
	attrRunID       = "wavehooks.run_id"
	attrMatchValue  = "wavehooks.match_value"
	attrPermission  = "wavehooks.permission"
	attrBlocked     = "wavehooks.blocked"
	attrReason      = "wavehooks.reason"
	attrOutcome     = "wavehooks.outcome"
	attrHooksRan    = "wavehooks.hooks_ran"
	attrHookType    = "wavehooks.hook.type"
	attrHookCommand = "wavehooks.hook.command"
	attrHookSource  = "wavehooks.hook.source"
	attrExitCode    = "wavehooks.hook.exit_code"
	attrTimedOut    = "wavehooks.hook.timed_out"
)

// maxAttrText bounds a text attribute (a reason, a command): a backend
// indexes them, and a hook's reason can be a page.
const maxAttrText = 4096

// decisionOf is a decision in Claude Code's words where it has them
// (accept, reject) and wavehooks' otherwise (ask, defer, none).
func decisionOf(d *hooks.Decision) string {
	if d == nil {
		return "none"
	}
	switch {
	case d.Permission == hooks.PermissionDeny || d.Blocked:
		return "reject"
	case d.Permission == hooks.PermissionAllow:
		return "accept"
	case d.Permission != hooks.PermissionNone:
		return string(d.Permission)
	}
	return "none"
}

// span is the time an event's hooks took: from the earliest start of a hook
// that ran (the run is recorded when the last one ended) to the record.
func span(r *hooks.EventRun) (start, end time.Time) {
	end = r.Time
	var longest time.Duration
	for _, h := range r.Hooks {
		if h.Ran && h.Duration > longest {
			longest = h.Duration
		}
	}
	return end.Add(-longest), end
}

func clipAttr(s string) string {
	if len(s) <= maxAttrText {
		return s
	}
	return s[:maxAttrText] + "…"
}

// eventAttrs are the attributes of an event's decision, its log record and
// its span alike.
func eventAttrs(r *hooks.EventRun) (name string, kvs []attribute.KeyValue) {
	start, end := span(r)
	tool := false
	if spec, ok := event.Spec(r.Event); ok && spec.MatchField == "tool_name" {
		tool = true
	}
	name = "hook_decision"
	if tool {
		name = "tool_decision"
	}
	d := r.Decision()
	ran := 0
	for _, h := range r.Hooks {
		if h.Ran {
			ran++
		}
	}
	kvs = []attribute.KeyValue{
		attribute.String(attrEventName, name),
		attribute.String(attrTimestamp, end.UTC().Format(time.RFC3339Nano)),
		attribute.String(attrSession, r.SessionID),
		attribute.String(attrHookEvent, string(r.Event)),
		attribute.String(attrDecision, decisionOf(d)),
		attribute.String(attrSource, "hook"),
		attribute.Int64(attrDurationMs, end.Sub(start).Milliseconds()),
		attribute.String(attrRunID, strconv.FormatUint(r.ID, 10)),
		attribute.String(attrOutcome, clipAttr(r.Outcome)),
		attribute.Int(attrHooksRan, ran),
	}
	if tool {
		kvs = append(kvs, attribute.String(attrToolName, r.MatchValue))
	} else if r.MatchValue != "" {
		kvs = append(kvs, attribute.String(attrMatchValue, clipAttr(r.MatchValue)))
	}
	if d != nil {
		kvs = append(kvs, attribute.String(attrPermission, string(d.Permission)), attribute.Bool(attrBlocked, d.Blocked))
		if d.Reason != "" {
			kvs = append(kvs, attribute.String(attrReason, clipAttr(d.Reason)))
		}
	}
	return name, kvs
}

// hookAttrs are the attributes of one hook that ran.
func hookAttrs(r *hooks.EventRun, h *hooks.Run) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String(attrEventName, "hook_run"),
		attribute.String(attrSession, r.SessionID),
		attribute.String(attrHookEvent, string(r.Event)),
		attribute.String(attrRunID, strconv.FormatUint(r.ID, 10)),
		attribute.String(attrHookType, h.Type),
		attribute.String(attrHookCommand, clipAttr(h.Command)),
		attribute.String(attrHookSource, h.Source.String()),
		attribute.Int(attrExitCode, h.ExitCode),
		attribute.Bool(attrTimedOut, h.TimedOut),
		attribute.Bool(attrSuccess, h.ExitCode == 0 && !h.TimedOut),
		attribute.Int64(attrDurationMs, h.Duration.Milliseconds()),
	}
}

// emitLogs emits the run's decision and each hook that ran as log records.
func emitLogs(ctx context.Context, l otellog.Logger, r *hooks.EventRun) {
	name, kvs := eventAttrs(r)
	eventName := EventHookDecision
	if name == "tool_decision" {
		eventName = EventToolDecision
	}
	emit := func(eventName string, at time.Time, kvs []attribute.KeyValue) {
		var rec otellog.Record
		rec.SetEventName(eventName)
		rec.SetTimestamp(at)
		rec.SetObservedTimestamp(at)
		rec.SetSeverity(otellog.SeverityInfo)
		rec.SetBody(attribute.StringValue(eventName))
		rec.AddAttributes(kvs...)
		l.Emit(ctx, rec)
	}
	emit(eventName, r.Time, kvs)
	for i := range r.Hooks {
		if h := &r.Hooks[i]; h.Ran {
			emit(EventHookRun, r.Time, hookAttrs(r, h))
		}
	}
}

// emitSpans starts and ends the run's span and a child span for each hook
// that ran, at the times the run says (a hook's start is taken as the
// event's: hooks of an event run in parallel).
func emitSpans(ctx context.Context, t trace.Tracer, r *hooks.EventRun) {
	start, end := span(r)
	_, kvs := eventAttrs(r)
	ctx, parent := t.Start(ctx, SpanEvent, trace.WithTimestamp(start), trace.WithAttributes(kvs...),
		trace.WithSpanKind(trace.SpanKindInternal))
	for i := range r.Hooks {
		h := &r.Hooks[i]
		if !h.Ran {
			continue
		}
		_, child := t.Start(ctx, SpanHook, trace.WithTimestamp(start), trace.WithAttributes(hookAttrs(r, h)...))
		child.End(trace.WithTimestamp(start.Add(h.Duration)))
	}
	parent.End(trace.WithTimestamp(end))
}
