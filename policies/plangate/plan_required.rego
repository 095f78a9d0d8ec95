# METADATA
# title: Plan-required decision
# description: |
#   No plan, no side effect. Reads and `say` are never gated. In spends_only
#   mode spends are gated; in side_effects mode every effect, spends included.
#   A gated call goes ahead only when a plan counts (see plangate.plans).
#   Shadow mode: when the rule in force has `enforce: false`, a call that
#   would be refused goes ahead, and the result says what would have happened
#   (`shadow: true` with the would-be code, reason and message), so an
#   operator can measure a mode before enforcing it.
package plangate.plan_required

import data.plangate.classify
import data.plangate.plans
import data.plangate.settings
import data.plangate.trust

# The rules read the call, its class and the settings in force directly
# (every rule an evaluation computes has a cost, so there are no aliases).
mode := settings.in_force.mode.value

# Spends are gated in spends_only mode; in side_effects mode, every effect
# and spend.
default gated := false

gated if {
	classify.class == "spend"
	mode == "spends_only"
}

gated if {
	classify.class == "spend"
	mode == "side_effects"
}

gated if {
	classify.class == "effect"
	mode == "side_effects"
}

# would_refuse: gated, and no plan counts.
default would_refuse := false

would_refuse if {
	gated
	count(plans.counting) == 0
}

# shadow: a would-be refusal under a rule that does not enforce. Only an
# explicit false turns enforcement off.
default shadow := false

shadow if {
	would_refuse
	settings.in_force.enforce.value == false
}

default allowed := false

allowed if not would_refuse

allowed if shadow

reason := "stale" if count(plans.stale_only) > 0

else := "none"

code := concat(":", ["plan_required", input.call.tool, reason])

# The message is built from phrases, each a function of what it phrases: a
# phrase is worked out once, for the refusal that needs it, and none is kept
# for the rest of the decision.
class_phrase("spend") := "a spend"

class_phrase(class) := "a side effect" if class != "spend"

scope_phrase(s) := "the workspace rule" if s.scope == "workspace"

scope_phrase(s) := concat("", ["the crew rule for ", s.id]) if s.scope == "crew"

scope_phrase(s) := concat("", ["the agent rule for ", s.id]) if s.scope == "agent"

# minutes is a whole number of minutes (format_int rounds down).
minutes(ms) := format_int(ms / 60000, 10)

# newest_stale_at is when the newest plan that failed on freshness alone was posted.
newest_stale_at := max([c.at | some c in plans.stale_only])

# who_phrase(reason): who has not planned, or whose newest plan is too old.
who_phrase(r) := p if {
	r == "stale"
	p := stale_phrase(plans.accept_upstream)
} else := concat("", [
	input.agent.id, " has posted no plan in a thread it speaks in within the last ",
	format_int(settings.in_force.windowMin.value, 10), " minutes", upstream_phrase(plans.accept_upstream),
])

upstream_phrase(false) := ""

upstream_phrase(true) := concat("", [", and nobody up its delegation chain (", concat(", ", sort(plans.upstream_ids)), ") has either"]) if {
	count(plans.upstream_ids) > 0
} else := ""

# The newest stale plan is the agent's own or, with acceptUpstream, may be a
# manager's (the first of the newest, in input order): name whose it is. Its
# age is told for the agent's own plan only: an agent never learns when
# another seat posted.
stale_phrase(accept_upstream) := concat("", [
	input.agent.id, "'s newest plan is ", minutes(input.now - newest_stale_at), " minutes old, outside the ",
	format_int(settings.in_force.windowMin.value, 10), "-minute window",
]) if {
	not managers_stale_plan(accept_upstream)
} else := concat("", [
	input.agent.id, " has no fresh plan, and the newest plan by ", newest_stale_author,
	" up its delegation chain is older than the ", format_int(settings.in_force.windowMin.value, 10), "-minute window",
])

# Only with acceptUpstream can the newest stale plan be another seat's.
managers_stale_plan(true) if newest_stale_author != input.agent.id

newest_stale_author := [c.author | some c in plans.stale_only; c.at == newest_stale_at][0]

# A claim the records do not back is named, so the agent knows why it did not count.
unrecorded_phrase(claimed) := "" if {
	count(claimed) == 0
} else := concat("", [
	" The claimed delegation by ", trust.unrecorded,
	" is not on record, so neither it nor anyone above it counts.",
]) if {
	trust.unrecorded
} else := ""

message := concat("", [
	code, " - ", input.call.tool, " is ", class_phrase(classify.class), " and ", input.agent.id,
	" runs under plan-required mode ", mode, " (", scope_phrase(settings.in_force.mode), "). ",
	who_phrase(reason), ".", unrecorded_phrase(trust.claimed), " Post a message of kind `plan` saying what you are about to do (in your own thread, ",
	"a crew thread above you, or the org thread), then retry. ",
	"A plan approves nothing: every other policy and human gate still applies.",
])
