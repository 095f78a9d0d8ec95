# METADATA
# title: Planning hold
# description: |
#   While an agent is held (input.hold is its active hold), every tool is
#   refused except the reviewer channel (how the agent sends its plan) and the
#   tools on the whitelist (how it gets its bearings). Reads are no exception.
#   The hold says nothing about a call once it is lifted.
package plangate.hold

import data.plangate.planning

channel := planning.in_force("reviewerChannel").value

whitelist_setting := planning.in_force("whitelist")

whitelist := whitelist_setting.value

hold := input.hold if is_object(input.hold)

default held := false

held if is_object(input.hold)

# exempt says why a tool stays open during a hold.
exempt := "reviewer_channel" if {
	input.call.tool == channel
} else := "whitelist" if {
	planning.whitelisted(input.call.tool, whitelist_setting)
}

default refused := false

refused if {
	held
	not exempt
}

code := concat(":", ["planning_hold", input.call.tool])

# A hold fact missing a field still refuses, with a plainer message.
placed_by := object.get(hold, "placedBy", "someone")

placed_phrase := concat("", ["placed on demand by ", placed_by]) if {
	hold.kind == "on_demand"
} else := concat("", ["placed by the reviewer ", placed_by])

task_phrase := concat("", [", for the task \"", hold.task, "\""]) if {
	is_string(hold.task)
	hold.task != ""
} else := ""

open_phrase := concat(", ", whitelist) if count(whitelist) > 0

else := "none are whitelisted, so rely on what you already know"

plural(n, word) := concat("", [format_int(n, 10), " ", word]) if n == 1

else := concat("", [format_int(n, 10), " ", word, "s"])

progress_phrase := "No plan has been sent yet." if {
	object.get(hold, "plans", 0) == 0
} else := concat("", [
	plural(hold.plans, "plan"), " sent so far and ",
	plural(object.get(hold, "pushBacks", 0), "push-back"),
	" from the reviewer; answer the latest push-back with a revised plan if there is one.",
])

message := concat("", [
	code, " - ", input.agent.id, " is on a planning hold (", placed_phrase, task_phrase, "), so ",
	input.call.tool, " stays closed until the hold is released. First get your bearings with the tools that ",
	"stay open during the hold (", open_phrase, "), then send your plan through ", channel,
	": how you mean to approach the work, and which reads, searches and tools you expect to use. ",
	progress_phrase, " A release approves the direction only: the work itself is checked as usual.",
])

# verdict summarizes the check for the decision's `checks`; `channel` names
# the agent's reviewer channel, so a gateway knows a plan when it sees one.
verdict := object.union(
	{"held": held, "refused": refused, "channel": channel},
	object.union(exempt_part, hold_part),
)

exempt_part := {"exempt": exempt} if {
	held
	exempt
} else := {}

hold_part := {"hold": {"id": hold.id, "kind": hold.kind}} if held

else := {}
