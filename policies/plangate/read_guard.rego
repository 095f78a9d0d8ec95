# METADATA
# title: Read guard
# description: |
#   A read of a whole file larger than the ceiling (readGuardMaxBytes in the
#   planning-gate settings) is refused, locally and deterministically. It
#   applies to a read-class tool listed under readGuard.tools, whose listing
#   names the argument holding the path (`path`), or holding an array of
#   paths for a tool that reads several files (`paths`), and the arguments
#   that ask for a part (offset, limit, range...). A call giving any of those
#   is not a whole-file read. Arguments that count lines (`lines`: `head`
#   for the first N lines, `tail` for the last N) ask for a part only as
#   large as those lines: lines do not bound bytes, so the host measures
#   them in a file over the ceiling (a span in input.files), and a span over
#   the ceiling is refused like the whole file.
#
#   The guard cannot be talked past: a path argument that is missing or not
#   one plain path (an array where one path is expected, an object, a number,
#   a NUL byte, a URL) is refused, and so is a call whose guarded arguments
#   were withheld from the policy for their size (input.call.omittedArgs).
#   The host resolves each path inside the configured read roots and reports
#   it in input.files (by path): a file with its size, something else,
#   missing, or outside the roots. A whole-file read outside every root is
#   refused, since nobody may look at that file's size; nothing about it is
#   said beyond the agent's own path. So is one of a FIFO, a device, a
#   socket or a file of /proc (`special`): it has no size, and a read of it
#   may never end. Until the host has gathered a path's fact, `needs` names
#   it.
package plangate.read_guard

import data.plangate.classify
import data.plangate.planning

# max_path_chars is the longest path accepted (PATH_MAX on Linux).
max_path_chars := 4096

# max_paths is the most paths one call may read whole.
max_paths := 64

# builtin_specs are the read tools of the MCP reference filesystem server,
# and an MCP gateway's resources/read of a file: URI (the gateway gives its
# path; a resource of another scheme is not guarded). They apply also behind a gateway's `<upstream>__` namespace or a
# host's `mcp__<server>__` prefix; a listing in the rules replaces them.
builtin_specs := {
	"resources/read": {"path": "path", "range": []},
	"read_text_file": {"path": "path", "range": [], "lines": {"head": "head", "tail": "tail"}},
	"read_file": {"path": "path", "range": [], "lines": {"head": "head", "tail": "tail"}},
	"read_media_file": {"path": "path", "range": []},
	"read_multiple_files": {"paths": "paths", "range": []},
}

# bare_name is the tool's name without a namespace (`fs__read_file` → `read_file`).
bare_name := parts[count(parts) - 1] if parts := split(input.call.tool, "__")

# Every built-in read tool's name has "read" in it: other tools skip the lookup.
# The lookups come first: most tools have no spec, and need no bare name.
spec := s if {
	s := data.plangate.rules.readGuard.tools[input.call.tool]
	not other_resource
} else := s if {
	contains(input.call.tool, "read")
	s := builtin_specs[bare_name]
	not other_resource
}

# other_resource: a resources/read of a URI that is not a file: URI (memo://,
# https://, …). The guard measures files only; such a resource has no path to
# judge, so it is not the guard's to refuse.
other_resource if {
	bare_name == "resources/read"
	not file_uri
}

file_uri if startswith(input.call.args.uri, "file:")

max_setting := planning.in_force("readGuardMaxBytes")

max_bytes := max_setting.value

default args := {}

args := input.call.args if is_object(input.call.args)

range_args := object.get(spec, "range", [])

# given_ranges are the part-asking arguments the call sets to a part: a whole
# number from 1 to the ceiling. Zero, false, "", an array or an object asks
# for no part (several file servers then read the whole file), and a count
# above the ceiling can take in the whole file, so neither makes it partial.
given_ranges := [r | some r in range_args; asks_part(args[r])]

# line_args are the arguments that count lines, by the end they count from.
line_args := object.get(spec, "lines", {})

# given_lines are the line counts the call asks for, each a part as
# given_ranges are: more lines than the ceiling has bytes take more than it
# (each line but the last ends in a newline) or are the whole file. The
# first N lines start after the lines an offset skips, so a call whose
# start is not one plain line number asks for lines nobody can place.
given_lines := [object.union({"from": end, "count": args[a]}, skip_part(end)) |
	one_start
	some end, a in line_args
	asks_part(args[a])
]

# one_start holds when the call starts at the beginning, or at one line
# number (every start it gives is that number).
default one_start := false

one_start if count(starts) == 0

one_start if {
	placed
	count({max([n - 1, 0]) | some n in starts}) == 1
}

skip_part(end) := {"skip": skipped} if {
	end == "head"
	skipped > 0
} else := {}

# skip_args say where the read starts (an offset, in bytes or lines): they
# do not bound what is read.
skip_args := object.get(spec, "skip", [])

# starts are the values the call gives its skip arguments.
starts := [args[a] | some a in skip_args; args[a] != null]

# placed holds when the call says where it starts: every start it gives is
# a whole number from 0 (anything else may start anywhere, the beginning
# included).
default placed := false

placed if {
	count(starts) > 0
	every n in starts {
		is_number(n)
		n >= 0
		n <= max_safe
		floor(n) == n
	}
}

# max_safe is the largest whole number a JSON number keeps exactly.
max_safe := 9007199254740991

# skipped is how much the call skips at least, in bytes or lines: the
# smallest start, less one for an offset counted from 1 (a skipped line is
# at least a byte, so as bytes this never counts too much).
default skipped := 0

skipped := max([min(starts) - 1, 0]) if placed

# unplaced_lines holds for a call that counts lines from a start nobody can place.
unplaced_lines if {
	not one_start
	some a in line_args
	asks_part(args[a])
}

default lined := false

lined if count(given_lines) > 0

asks_part(v) if {
	is_number(v)
	v >= 1
	v <= max_bytes
	floor(v) == v
}

# multi is true for a tool that reads several files from one array argument.
default multi := false

multi if is_string(spec.paths)

path_arg := spec.paths if multi

else := spec.path

# guarded are the arguments the guard reads.
guarded := (({path_arg} | {r | some r in range_args}) | {a | some a in line_args}) | {a | some a in skip_args}

default omitted := []

omitted := input.call.omittedArgs if is_array(input.call.omittedArgs)

# withheld are the guarded arguments the host could not give the policy.
withheld := sort([a | some a in omitted; a in guarded])

# path_problem(v) says why v is not one plain path, if it is not.
path_problem(v) := concat("", ["is ", type_phrase(v), ", not a path"]) if {
	not is_string(v)
} else := "is empty" if {
	v == ""
} else := "contains a NUL byte" if {
	contains(v, "\u0000")
} else := "is a URL, not a path" if {
	regex.match(`^[A-Za-z][A-Za-z0-9+.-]+:/`, v)
} else := "starts with ~, which a file server may expand to a home directory outside the roots" if {
	startswith(v, "~")
} else := concat("", ["is longer than ", format_int(max_path_chars, 10), " characters"]) if {
	count(v) > max_path_chars
}

type_phrase(v) := "an array" if is_array(v)

else := "an object" if is_object(v)

else := concat("", ["a ", type_name(v)])

arg_phrase := concat("", ["argument \"", path_arg, "\""])

# problem says why the call does not name its file(s) plainly, if it does not.
problem := concat("", [arg_phrase, " is missing"]) if {
	not has_path_arg
} else := concat("", [arg_phrase, " ", path_problem(args[path_arg])]) if {
	not multi
	path_problem(args[path_arg])
} else := concat("", [arg_phrase, " is ", type_phrase(args[path_arg]), ", not an array of paths"]) if {
	multi
	not is_array(args[path_arg])
} else := concat("", [arg_phrase, " is an empty array"]) if {
	multi
	count(args[path_arg]) == 0
} else := concat("", [arg_phrase, " has more than ", format_int(max_paths, 10), " paths"]) if {
	multi
	count(args[path_arg]) > max_paths
} else := bad_items[0] if {
	multi
	count(bad_items) > 0
}

default has_path_arg := false

has_path_arg if {
	some k, _ in args
	k == path_arg
}

# bad_items say which entries of a paths array are not plain paths.
bad_items := [concat("", [arg_phrase, "[", format_int(i, 10), "] ", path_problem(v)]) |
	some i, v in args[path_arg]
	path_problem(v)
]

# paths are the files the call reads, once they are plain.
paths := [args[path_arg]] if {
	not multi
	not problem
} else := args[path_arg] if {
	multi
	not problem
}

# fact(p) is the host's fact about path p, when it has gathered one.
fact(p) := input.files[p] if {
	is_object(input.files)
	is_object(input.files[p])
	input.files[p].path == p
}

# big(p) holds for a regular file over the ceiling.
big(p) if {
	fact(p).kind == "file"
	fact(p).size > max_bytes
}

# span(p, l) is the host's measure of the lines l asks for in file p, in
# bytes (exact up to the ceiling, one more than the ceiling beyond it), or
# null when the host could not measure them.
span(p, l) := [s.bytes |
	some s in fact(p).spans
	s.from == l.from
	s.count == l.count
	object.get(s, "skip", 0) == object.get(l, "skip", 0)
	measure(s.bytes)
][0]

measure(b) if is_number(b)

measure(b) if is_null(b)

measured(p) if {
	every l in given_lines {
		measure(span(p, l))
	}
}

# unmeasured are the files over the ceiling whose asked lines are not all measured yet.
default unmeasured := []

unmeasured := [p | some p in paths; big(p); not measured(p)] if lined

# unchecked are the paths the host must still look up, each named once.
unchecked := sort({p | some p in paths; not fact(p)} | {p | some p in unmeasured})

outside := [p | some p in paths; fact(p).kind == "outside"]

# special are the paths with no size to check: a FIFO, a device, a socket or a
# file of /proc, which a tool reads until it ends, if it ever does.
special := [p | some p in paths; fact(p).kind == "special"]

# long are the asked line spans over the ceiling, with the bytes measured.
long := [object.union(l, {"path": p, "bytes": bytes}) |
	some p in paths
	big(p)
	some l in given_lines
	bytes := span(p, l)
	is_number(bytes)
	bytes > max_bytes
]

# unmeasurable are the asked line spans the host could not measure: the
# guard cannot vouch for them, in a file it knows is over the ceiling.
unmeasurable := [object.union(l, {"path": p, "bytes": null}) |
	some p in paths
	big(p)
	some l in given_lines
	is_null(span(p, l))
]

# rest(p) is at most how much of file p the call reads from where it starts;
# a start past the end is not counted (a tool may wrap it around).
rest(p) := fact(p).size - skipped if {
	skipped <= fact(p).size
} else := fact(p).size

over := [p | some p in paths; not lined; big(p); rest(p) > max_bytes]

regular := [p | some p in paths; fact(p).kind == "file"]

default on := false

on if {
	is_number(max_bytes)
	max_bytes > 0
}

# status says how far the check got; withheld, bad_path, outside_roots, unsized,
# lines_unmeasured, lines_over and over refuse.
status := "off" if {
	not on
} else := "not_listed" if {
	not spec
} else := "not_read" if {
	classify.class != "read"
} else := "withheld" if {
	count(withheld) > 0
} else := "bad_path" if {
	problem
} else := "ranged" if {
	count(given_ranges) > 0
} else := "needs_size" if {
	count(unchecked) > 0
} else := "outside_roots" if {
	count(outside) > 0
} else := "unsized" if {
	count(special) > 0
} else := "lines_unmeasured" if {
	count(unmeasurable) > 0
} else := "lines_over" if {
	count(long) > 0
} else := "over" if {
	count(over) > 0
} else := "not_a_file" if {
	count(regular) == 0
} else := "ranged" if {
	lined
} else := "under"

default applies := false

applies if status in {
	"withheld", "bad_path", "needs_size", "outside_roots", "unsized", "lines_unmeasured",
	"lines_over", "over", "not_a_file", "under",
}

# listed: the tool has a read spec. Most tools have none, and `spec` is then
# undefined (worked out again at each reference); `listed` is worked out once.
default listed := false

listed if spec

default refused := false

# Only a listed tool can be refused: the cheap test first.
refused if {
	listed
	status in {"withheld", "bad_path", "outside_roots", "unsized", "lines_unmeasured", "lines_over", "over"}
}

# needs names the paths the host must look up before the decision is final,
# and for a line-counted read the lines to measure in a file over `upTo` bytes.
needs := {"files": unchecked} if {
	listed
	status == "needs_size"
	not lined
} else := {"files": unchecked, "spans": given_lines, "upTo": max_bytes} if {
	listed
	status == "needs_size"
}

code := concat(":", ["read_guard", input.call.tool])

# part_args are all the arguments that ask for a part.
part_args := array.concat(range_args, [a | some a in line_args])

slice_phrase := concat("", ["pass ", concat(" or ", part_args), " to read a part of it"]) if {
	count(part_args) > 0
} else := "read a part of it with a tool that takes a range"

ceiling_phrase := concat("", [
	"the ", format_int(max_bytes, 10), "-byte ceiling for whole-file reads set by ",
	planning.where(max_setting),
])

size_phrase(p) := concat("", [
	"all of ", p, " (", format_int(fact(p).size, 10), " bytes, ",
	format_int(fact(p).size - max_bytes, 10), " over)",
]) if {
	not placed
} else := concat("", [
	"the rest of ", p, " from ", [a | some a in skip_args; args[a] == min(starts)][0], " ", format_int(min(starts), 10),
	" on (up to ", format_int(rest(p), 10), " bytes, ", format_int(rest(p) - max_bytes, 10), " over)",
])

# advice is what to do instead of a read over the ceiling.
advice := concat("", [
	"Give ", concat(" and ", skip_args), " as one whole line number to start from, or leave it out",
]) if {
	unplaced_lines
} else := concat("", ["Sample it instead (", slice_phrase, "), or search it for what you need, then carry on"])

# range_phrase offers the range arguments, which ask for a part wherever the file is.
range_phrase := concat("", [", or pass ", concat(" or ", range_args), " to read a part of it"]) if {
	count(range_args) > 0
} else := ""

end_phrase := {"head": "first", "tail": "last"}

lines_phrase(l) := concat("", ["the ", end_phrase[l.from], " ", format_int(l.count, 10), " lines of ", l.path, from_phrase(l)])

from_phrase(l) := concat("", [" from line ", format_int(l.skip + 1, 10), " on"]) if is_number(l.skip)

else := ""

message := concat("", [
	code, " - plangate could not measure ", lines_phrase(unmeasurable[0]), " (the file could not be read, ",
	"or the lines before them run on too far), so it cannot tell whether they take more than ", ceiling_phrase,
	". Ask for fewer lines nearer the start, or search it for what you need.",
]) if {
	status == "lines_unmeasured"
} else := concat("", [
	code, " - ", lines_phrase(long[0]), " take more than ", ceiling_phrase,
	": as good as reading it whole. Ask for fewer lines, or search it for what you need, then carry on.",
]) if {
	status == "lines_over"
} else := concat("", [
	code, " - this call reads ", concat(", ", [size_phrase(p) | some p in over]), ", more than ",
	ceiling_phrase, ". ", advice, ".",
]) if {
	status == "over"
} else := concat("", [
	code, " - ", concat(", ", outside), " is outside the directories plangate may look at, so it cannot ",
	"check the size of a whole-file read there. Read a file inside them", range_phrase, ".",
]) if {
	status == "outside_roots"
	not lined
} else := concat("", [
	code, " - ", concat(", ", outside), " is outside the directories plangate may look at, so it cannot ",
	"check how large the lines asked for are. Read a file inside them.",
]) if {
	status == "outside_roots"
} else := concat("", [
	code, " - ", concat(", ", special), " has no size to check (a FIFO, a device, a socket or a file of /proc): ",
	"a read of it may never end, so plangate cannot check how much it takes. Read a regular file.",
]) if {
	status == "unsized"
} else := concat("", [
	code, " - ", problem, ": name the file with one plain path (a string, no NUL byte, not a URL), ",
	"so that plangate can check the size of a whole-file read.",
]) if {
	status == "bad_path"
} else := concat("", [
	code, " - argument(s) ", concat(", ", withheld), " were too large to be given to the policy, so this ",
	"whole-file read cannot be checked. Name the file with a short plain path.",
])

# verdict summarizes the check for the decision's `checks`.
verdict := object.union(
	{"status": status, "applies": applies, "refused": refused, "maxBytes": max_bytes},
	object.union(object.union(path_part, files_part), problem_part),
)

path_part := {"path": args[path_arg]} if {
	not multi
	paths
} else := {"paths": paths} if {
	paths
} else := {}

files_part := {"files": [fact(p) | some p in paths; fact(p)]} if {
	some p in paths
	fact(p)
} else := {}

problem_part := {"lines": long} if {
	status == "lines_over"
} else := {"lines": unmeasurable} if {
	status == "lines_unmeasured"
} else := {"problem": problem} if {
	status == "bad_path"
} else := {"withheld": withheld} if {
	status == "withheld"
} else := {}
