# METADATA
# title: Read guard
# description: |
#   A read of a whole file larger than the ceiling (readGuardMaxBytes in the
#   planning-gate settings) is refused, locally and deterministically. It
#   applies to a read-class tool listed under readGuard.tools, whose listing
#   names the argument holding the path and the arguments that ask for a part
#   (offset, limit, range...). A call giving any of those is not a whole-file
#   read. The host resolves the path and reports the file's size as
#   input.file; until it has, `needs` says which fact is missing.
package plangate.read_guard

import data.plangate.classify
import data.plangate.planning

tool := input.call.tool

default specs := {}

specs := data.plangate.rules.readGuard.tools

spec := specs[tool]

max_setting := planning.effective(input.agent).readGuardMaxBytes

max_bytes := max_setting.value

default args := {}

args := input.call.args if is_object(input.call.args)

range_args := object.get(spec, "range", [])

# given_ranges are the part-asking arguments the call sets (null counts as unset).
given_ranges := [r | some r in range_args; args[r] != null]

path := args[spec.path] if {
	is_string(args[spec.path])
	args[spec.path] != ""
}

# file is the host's fact about this call's path, when it has gathered one.
file := input.file if {
	is_object(input.file)
	input.file.path == path
}

default on := false

on if {
	is_number(max_bytes)
	max_bytes > 0
}

# status says how far the check got; only "over" refuses.
status := "off" if {
	not on
} else := "not_listed" if {
	not spec
} else := "not_read" if {
	classify.class_of(tool) != "read"
} else := "no_path" if {
	not path
} else := "ranged" if {
	count(given_ranges) > 0
} else := "needs_size" if {
	not file
} else := "not_a_file" if {
	file.kind != "file"
} else := "over" if {
	file.size > max_bytes
} else := "under"

default applies := false

applies if status in {"needs_size", "not_a_file", "over", "under"}

default refused := false

refused if status == "over"

# needs names the fact the host must gather before the decision is final.
needs := {"file": {"arg": spec.path, "path": path}} if status == "needs_size"

code := concat(":", ["read_guard", tool])

slice_phrase := concat("", ["pass ", concat(" or ", range_args), " to read a part of it"]) if {
	count(range_args) > 0
} else := "read a part of it with a tool that takes a range"

message := concat("", [
	code, " — this call reads all of ", path, " (", format_int(file.size, 10), " bytes), more than the ",
	format_int(max_bytes, 10), "-byte ceiling for whole-file reads set by ", planning.where(max_setting),
	". Sample it instead — ", slice_phrase, " — or search it for what you need, then carry on.",
])

# verdict summarizes the check for the decision's `checks`.
verdict := object.union(
	{"status": status, "applies": applies, "refused": refused, "maxBytes": max_bytes},
	object.union(path_part, file_part),
)

path_part := {"path": path} if path

else := {}

file_part := {"file": file} if file

else := {}
