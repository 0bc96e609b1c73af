// Bad Checkmate input: one precise error and a non-zero exit each.

// RUN: split-file %s %t
// RUN: not remat-translate --import-checkmate-json %t/schema.json 2>&1 | FileCheck %s --check-prefix=SCHEMA
// RUN: not remat-translate --import-checkmate-json %t/dangling.json 2>&1 | FileCheck %s --check-prefix=DANGLING
// RUN: not remat-translate --import-checkmate-json %t/cycle.json 2>&1 | FileCheck %s --check-prefix=CYCLE
// RUN: not remat-translate --import-checkmate-json %t/phase.json 2>&1 | FileCheck %s --check-prefix=PHASE
// RUN: not remat-translate --import-checkmate-json %t/malformed.json 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not remat-translate --import-checkmate-json %t/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not remat-translate --import-checkmate-json %t/duplicate.json 2>&1 | FileCheck %s --check-prefix=DUPLICATE

// SCHEMA: schema.json:0:0: error: cannot import the Checkmate graph: unknown node schema: the first node has neither "cost_ram"
// DANGLING: error: cannot import the Checkmate graph: link #1 of "links" (1 -> 7) names a node that is not in "nodes"
// CYCLE: error: cannot import the Checkmate graph: the links form a cycle through node
// PHASE: error: the Checkmate graph's phases are inconsistent: {{.*}} is marked phase forward but reads
// MALFORMED: error: cannot import the Checkmate graph: {{.*}}line 1
// MISSING: error: cannot import the Checkmate graph: {{.*}}"cost_cpu"
// A name twice in one object: Python's json keeps the last, this reader kept
// the first (before 2026-12-08); refused. Errors are at the file, without a
// line: a graph file is one line of JSON, which was echoed whole.
// DUPLICATE: duplicate.json:0:0: error: cannot import the Checkmate graph: malformed JSON at line 1, column {{[0-9]+}}: member "cost_ram" appears twice in one object; give it once
// DUPLICATE-NOT: "directed"

//--- schema.json
{"directed": true, "nodes": [{"id": 0, "size": 3}], "links": []}
//--- dangling.json
{"directed": true,
 "nodes": [{"id": 0, "name": "a", "backward": false, "cost_cpu": 1, "cost_ram": 4},
           {"id": 1, "name": "b", "backward": true, "cost_cpu": 1, "cost_ram": 4}],
 "links": [{"source": 0, "target": 1}, {"source": 1, "target": 7}]}
//--- cycle.json
{"directed": true,
 "nodes": [{"id": 0, "name": "a", "backward": false, "cost_cpu": 1, "cost_ram": 4},
           {"id": 1, "name": "b", "backward": false, "cost_cpu": 1, "cost_ram": 4},
           {"id": 2, "name": "c", "backward": true, "cost_cpu": 1, "cost_ram": 4}],
 "links": [{"source": 0, "target": 1}, {"source": 1, "target": 2}, {"source": 2, "target": 1}]}
//--- phase.json
{"directed": true,
 "nodes": [{"id": 0, "name": "a", "backward": true, "cost_cpu": 1, "cost_ram": 4},
           {"id": 1, "name": "b", "backward": false, "cost_cpu": 1, "cost_ram": 4}],
 "links": [{"source": 0, "target": 1}]}
//--- malformed.json
{"nodes": [,]}
//--- missing.json
{"directed": true,
 "nodes": [{"id": 0, "name": "a", "backward": false, "cost_ram": 4}],
 "links": []}
//--- duplicate.json
{"directed": true, "nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 100, "cost_ram": -1}], "links": []}
