# The work every plan-required refusal needs, and nothing else, written as
# small rules (plangate's own style): the tool's class by exact name or
# prefix pattern, the settings in force by agent, crew and workspace rule,
# the acting agent's own plans in the threads it speaks in, the code and
# the message. It knows no hold, read guard, run, delegation or upstream
# plan, so bench/lower-bound.ts gives it only inputs that have none; there
# its answer's fields equal plangate's. A measuring stick, never a policy.
package plangate

tool := input.call.tool

agent := input.agent.id

class := c if {
	c := data.plangate.rules.tools.exact[tool]
} else := c if {
	found := [e |
		some e in data.plangate.rules.tools.match.byFirst[substring(tool, 0, 1)]
		e.shape == "prefix"
		startswith(tool, e.prefix)
	]
	top := max([e.literals | some e in found])
	c := [e.class | some e in found; e.literals == top][0]
} else := data.plangate.rules.tools.default

layers := array.concat(agent_layer, array.concat(
	[l | some crew in input.agent.crews; l := data.plangate.rules.index.settings.crews[crew]],
	[data.plangate.rules.index.settings.workspace],
))

agent_layer := [l] if {
	l := data.plangate.rules.index.settings.agents[agent]
} else := []

mode := array.concat([x | some l in layers; x := l.mode], [{"value": "off", "scope": "default"}])[0]

window := array.concat([x | some l in layers; x := l.windowMin], [{"value": 30, "scope": "default"}])[0]

accept_upstream := array.concat([x | some l in layers; x := l.acceptUpstream], [{"value": false, "scope": "default"}])[0]

enforce := array.concat([x | some l in layers; x := l.enforce], [{"value": true, "scope": "default"}])[0]

gated if {
	class == "spend"
	mode.value in {"spends_only", "side_effects"}
}

gated if {
	class == "effect"
	mode.value == "side_effects"
}

speaks_in("org")

speaks_in(thread) if thread == concat(":", ["agent", agent])

speaks_in(thread) if {
	startswith(thread, "crew:")
	substring(thread, 5, -1) in input.agent.crews
}

eligible := [m |
	some m in input.messages
	m.kind == "plan"
	m.authorKind == "agent"
	m.author == agent
	speaks_in(m.thread)
	m.at <= input.now
]

fresh_after := input.now - (window.value * 60000)

counting := [m | some m in eligible; m.at > fresh_after]

refused if {
	gated
	count(counting) == 0
	enforce.value != false
}

reason := "stale" if count(eligible) > 0

else := "none"

code := concat(":", ["plan_required", tool, reason])

class_phrase := "a spend" if class == "spend"

else := "a side effect"

scope_phrase := "the workspace rule" if mode.scope == "workspace"

else := concat("", ["the ", mode.scope, " rule for ", mode.id])

who_phrase := concat("", [
	agent, "'s newest plan is ", format_int((input.now - max([m.at | some m in eligible])) / 60000, 10),
	" minutes old, outside the ", format_int(window.value, 10), "-minute window",
]) if {
	reason == "stale"
} else := concat("", [
	agent, " has posted no plan in a thread it speaks in within the last ",
	format_int(window.value, 10), " minutes",
])

message := concat("", [
	code, " - ", tool, " is ", class_phrase, " and ", agent, " runs under plan-required mode ",
	mode.value, " (", scope_phrase, "). ", who_phrase, ". Post a message of kind `plan` saying what ",
	"you are about to do (in your own thread, a crew thread above you, or the org thread), then retry. ",
	"A plan approves nothing: every other policy and human gate still applies.",
])

decide := {
	"allowed": false,
	"check": "plan_required",
	"class": class,
	"code": code,
	"gated": true,
	"message": message,
	"reason": reason,
	"settings": {
		"mode": mode.value,
		"windowMin": window.value,
		"acceptUpstream": accept_upstream.value,
		"enforce": enforce.value,
	},
} if refused
