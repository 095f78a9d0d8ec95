# The same work as bench/lower-bound/split, written as one rule: every value
# a local variable of one body, nothing memoized, no function called. A
# measuring stick, never a policy: it shows what the rules' own overhead
# costs each engine, beside the same work split into small rules.
package plangate

decide := answer if {
	tool := input.call.tool
	agent := input.agent.id
	now := input.now
	rules := data.plangate.rules
	found := [e |
		some e in rules.tools.match.byFirst[substring(tool, 0, 1)]
		e.shape == "prefix"
		startswith(tool, e.prefix)
	]
	top := max(array.concat([e.literals | some e in found], [-1]))
	class := array.concat(
		array.concat([c | c := rules.tools.exact[tool]], [e.class | some e in found; e.literals == top]),
		[rules.tools.default],
	)[0]
	idx := rules.index.settings
	layers := array.concat([l | l := idx.agents[agent]], array.concat(
		[l | some crew in input.agent.crews; l := idx.crews[crew]],
		[idx.workspace],
	))
	mode := array.concat([x | some l in layers; x := l.mode], [{"value": "off", "scope": "default"}])[0]
	window := array.concat([x | some l in layers; x := l.windowMin], [{"value": 30, "scope": "default"}])[0]
	accept_upstream := array.concat([x | some l in layers; x := l.acceptUpstream], [{"value": false, "scope": "default"}])[0]
	enforce := array.concat([x | some l in layers; x := l.enforce], [{"value": true, "scope": "default"}])[0]
	class in ["spend", "effect"]
	mode.value in array.concat(["side_effects"], [m | class == "spend"; m := "spends_only"])
	enforce.value != false
	threads := array.concat(["org", concat(":", ["agent", agent])], [concat(":", ["crew", c]) | some c in input.agent.crews])
	planned := [m.at |
		some m in input.messages
		m.kind == "plan"
		m.authorKind == "agent"
		m.author == agent
		m.at <= now
		m.thread in threads
	]
	fresh_after := now - (window.value * 60000)
	count([at | some at in planned; at > fresh_after]) == 0
	stale := count(planned) > 0
	reason := array.concat([r | stale; r := "stale"], ["none"])[0]
	code := concat(":", ["plan_required", tool, reason])
	window_text := format_int(window.value, 10)

	# A comprehension with a condition is a branch worked out only when taken.
	who := array.concat(
		[w |
			stale
			w := concat("", [
				agent, "'s newest plan is ", format_int((now - max(planned)) / 60000, 10),
				" minutes old, outside the ", window_text, "-minute window",
			])
		],
		[w |
			not stale
			w := concat("", [agent, " has posted no plan in a thread it speaks in within the last ", window_text, " minutes"])
		],
	)[0]
	scope := array.concat(
		[s | mode.scope == "workspace"; s := "the workspace rule"],
		[s | mode.scope != "workspace"; s := concat("", ["the ", mode.scope, " rule for ", mode.id])],
	)[0]
	class_phrase := array.concat([p | class == "spend"; p := "a spend"], ["a side effect"])[0]
	answer := {
		"allowed": false,
		"check": "plan_required",
		"class": class,
		"code": code,
		"gated": true,
		"message": concat("", [
			code, " - ", tool, " is ", class_phrase, " and ", agent,
			" runs under plan-required mode ", mode.value, " (", scope, "). ", who, ". Post a message of kind `plan` ",
			"saying what you are about to do (in your own thread, a crew thread above you, or the org thread), then retry. ",
			"A plan approves nothing: every other policy and human gate still applies.",
		]),
		"reason": reason,
		"settings": {
			"mode": mode.value,
			"windowMin": window.value,
			"acceptUpstream": accept_upstream.value,
			"enforce": enforce.value,
		},
	}
}
