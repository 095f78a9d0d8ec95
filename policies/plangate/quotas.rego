# METADATA
# title: Per-seat quotas
# description: |
#   Whether one write of a seat (a message, a delegation, a run, a hold plan,
#   an approval request) is over its quota. input.kind names the kind,
#   input.seat the seat, input.now the time (epoch ms), and input.counts,
#   when the host has read them, what the store holds for the seat: `recent`
#   (rows written in the window), `standing` (rows kept) and `edge` (the time
#   of the rate-th newest row in the window, when there are that many). The
#   host counts each only up to its quota plus one. Without counts, the
#   answer is the quota in force, so the host knows how far to count.
#   The standing count is judged first: time alone does not free it.
package plangate.quotas

# The built-in quotas, for a kind or a field no rule sets.
defaults := {
	"messages": {"rate": 600, "windowMin": 60, "standing": 50000},
	"delegations": {"rate": 120, "windowMin": 60, "standing": 5000},
	"runs": {"rate": 120, "windowMin": 60, "standing": 5000},
	"holdPlans": {"rate": 30, "windowMin": 60, "standing": 100},
	"approvalRequests": {"rate": 60, "windowMin": 60, "standing": 1000},
}

rule := data.plangate.rules.quotas[input.kind] if is_object(data.plangate.rules.quotas[input.kind])

else := {}

setting(name) := rule[name] if is_number(rule[name])

else := defaults[input.kind][name]

source_part := {"source": rule.source} if is_string(rule.source)

else := {}

limits := object.union(
	{"kind": input.kind, "rate": setting("rate"), "windowMin": setting("windowMin"), "standing": setting("standing")},
	source_part,
) if defaults[input.kind]

counts := input.counts if is_object(input.counts)

over := "standing" if {
	counts.standing >= limits.standing
} else := "rate" if {
	counts.recent >= limits.rate
}

code := concat(":", ["quota", input.kind, over])

window_ms := limits.windowMin * 60000

# When the rate refused: seconds until the oldest counted write leaves the window (at least 1).
retry_after_sec := max([1, ceil(((counts.edge + window_ms) - input.now) / 1000)]) if {
	over == "rate"
	is_number(counts.edge)
} else := limits.windowMin * 60 if over == "rate"

nouns := {
	"messages": "messages",
	"delegations": "delegations (as manager)",
	"runs": "runs",
	"holdPlans": "plans to the reviewer",
	"approvalRequests": "approval requests",
}

where := concat("", ["the rule at ", limits.source]) if limits.source

else := "the built-in default"

phrase := concat("", [
	input.seat, " has sent ", format_int(counts.recent, 10), " ", nouns[input.kind], " in the last ",
	format_int(limits.windowMin, 10), " minutes; its quota is ", format_int(limits.rate, 10),
	" (quotas.", input.kind, ".rate, ", where, "). Retry in ", format_int(retry_after_sec, 10), " s",
]) if over == "rate"

else := concat("", [
	input.seat, " keeps ", format_int(counts.standing, 10), " ", nouns[input.kind],
	" in the store; its quota is ", format_int(limits.standing, 10),
	" (quotas.", input.kind, ".standing, ", where, "). Retention frees them as they age",
])

message := concat("", [code, " - ", phrase, ", or ask an operator to raise the quota. This write was refused and nothing was stored."])

retry_part := {"retryAfterSec": retry_after_sec} if over == "rate"

else := {}

# The answer: the quota in force, and when the counts are over it, the refusal.
verdict := object.union(
	{"allowed": false, "limits": limits, "code": code, "limit": over, "message": message},
	retry_part,
) if over

else := {"allowed": true, "limits": limits} if limits
