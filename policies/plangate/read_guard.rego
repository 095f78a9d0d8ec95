# METADATA
# title: Read guard
# description: |
#   A read of a whole file larger than the ceiling (readGuardMaxBytes in the
#   planning-gate settings) is refused, locally and deterministically. It
#   applies to a read-class tool listed under readGuard.tools, whose listing
#   names the argument holding the path and the arguments that ask for a part
#   (offset, limit, range...). A call giving any of those is not a whole-file
#   read. The path argument holds one path, or an array of paths each read
#   whole. The host resolves each path and reports its size (input.file for
#   one path, input.files for an array); until it has, `needs` says which
#   facts are missing. The read tools of the MCP reference filesystem server
#   and an MCP resources/read are known out of the box (builtin_specs), also behind a gateway's
#   `<upstream>__` namespace; a listing in the rules replaces them.
package plangate.read_guard

import data.plangate.classify
import data.plangate.planning

tool := input.call.tool

default specs := {}

specs := data.plangate.rules.readGuard.tools

# builtin_specs are the read tools of the MCP reference filesystem server,
# and an MCP gateway's resources/read of a file: URI (the gateway gives its path).
builtin_specs := {
	"resources/read": {"path": "path", "range": []},
	"read_text_file": {"path": "path", "range": ["head", "tail"]},
	"read_file": {"path": "path", "range": ["head", "tail"]},
	"read_media_file": {"path": "path", "range": []},
	"read_multiple_files": {"path": "paths", "range": []},
}

# bare_name is the tool's name without a gateway namespace (`fs__read_file` → `read_file`).
bare_name := parts[count(parts) - 1] if parts := split(tool, "__")

spec := s if {
	s := specs[tool]
} else := s if {
	s := builtin_specs[bare_name]
}

max_setting := planning.effective(input.agent).readGuardMaxBytes

max_bytes := max_setting.value

default args := {}

args := input.call.args if is_object(input.call.args)

range_args := object.get(spec, "range", [])

# given_ranges are the part-asking arguments the call sets (null counts as unset).
given_ranges := [r | some r in range_args; args[r] != null]

# targets are the paths the call reads whole: the path argument as one
# non-empty string, or a non-empty array of them.
targets := [p] if {
	p := args[spec.path]
	is_string(p)
	p != ""
} else := ps if {
	ps := args[spec.path]
	is_array(ps)
	count(ps) > 0
	every p in ps {
		is_string(p)
		p != ""
	}
}

# fact_of is the host's fact about one path, when it has gathered it.
fact_of(p) := input.file if {
	is_object(input.file)
	input.file.path == p
} else := f if {
	found := [g | some g in object.get(input, "files", []); is_object(g); g.path == p]
	count(found) > 0
	f := found[0]
}

missing := [p | some p in targets; not fact_of(p)]

known := [f | some p in targets; f := fact_of(p)]

over_files := [f | some f in known; f.kind == "file"; f.size > max_bytes]

# file is the fact the verdict and the message name: the first file over the ceiling, else the first path's.
file := over_files[0] if {
	count(over_files) > 0
} else := fact_of(targets[0])

path := file.path if {
	file
} else := targets[0]

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
	not targets
} else := "ranged" if {
	count(given_ranges) > 0
} else := "needs_size" if {
	count(missing) > 0
} else := "over" if {
	count(over_files) > 0
} else := "not_a_file" if {
	count([f | some f in known; f.kind == "file"]) == 0
} else := "under"

default applies := false

applies if status in {"needs_size", "not_a_file", "over", "under"}

default refused := false

refused if status == "over"

# needs names the fact the host must gather before the decision is final.
needs := {"file": {"arg": spec.path, "path": targets[0]}} if {
	status == "needs_size"
	is_string(args[spec.path])
}

needs := {"files": {"arg": spec.path, "paths": missing}} if {
	status == "needs_size"
	is_array(args[spec.path])
}

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
