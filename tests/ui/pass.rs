//! Every construct the macros must accept, compiled and run: each `*/pass-*.rs` file is a module
//! of this test crate (a `#![no_implicit_prelude]` file keeps that attribute as the module's own,
//! so the generated code is still resolved without the prelude) and each test runs its `main`.
//!
//! These were trybuild `pass` cases; as modules they are compiled by the test build itself
//! instead of by a second, full build of every dependency in trybuild's own project.

// The cases declare components whose fields exist only to be declared, as trybuild allowed.
#![allow(dead_code)]

#[path = "bundle/pass-distinct-types.rs"]
mod bundle_distinct_types;
#[test]
fn bundle_distinct_types_compiles_and_runs() {
    bundle_distinct_types::main();
}

#[path = "component/pass-no-implicit-prelude.rs"]
mod component_no_implicit_prelude;
#[test]
fn component_no_implicit_prelude_compiles_and_runs() {
    component_no_implicit_prelude::main();
}

#[path = "component/pass-no-snapshot.rs"]
mod component_no_snapshot;
#[test]
fn component_no_snapshot_compiles_and_runs() {
    component_no_snapshot::main();
}

#[path = "events/pass-send-and-receive.rs"]
mod events_send_and_receive;
#[test]
fn events_send_and_receive_compiles_and_runs() {
    events_send_and_receive::main();
}

#[path = "scene/pass-no-implicit-prelude.rs"]
mod scene_no_implicit_prelude;
#[test]
fn scene_no_implicit_prelude_compiles_and_runs() {
    scene_no_implicit_prelude::main();
}

#[path = "seal/pass-defers-without-writing.rs"]
mod seal_defers_without_writing;
#[test]
fn seal_defers_without_writing_compiles_and_runs() {
    seal_defers_without_writing::main();
}

#[path = "seal/pass-derived-system-param.rs"]
mod seal_derived_system_param;
#[test]
fn seal_derived_system_param_compiles_and_runs() {
    seal_derived_system_param::main();
}

#[path = "seal/pass-filter-on-written-component.rs"]
mod seal_filter_on_written_component;
#[test]
fn seal_filter_on_written_component_compiles_and_runs() {
    seal_filter_on_written_component::main();
}

#[path = "seal/pass-parameters-recognised-by-type.rs"]
mod seal_parameters_recognised_by_type;
#[test]
fn seal_parameters_recognised_by_type_compiles_and_runs() {
    seal_parameters_recognised_by_type::main();
}

#[path = "seal/pass-prefab-instantiated-by-declaring-system.rs"]
mod seal_prefab_instantiated_by_declaring_system;
#[test]
fn seal_prefab_instantiated_by_declaring_system_compiles_and_runs() {
    seal_prefab_instantiated_by_declaring_system::main();
}

#[path = "seal/pass-two-types-named-alike.rs"]
mod seal_two_types_named_alike;
#[test]
fn seal_two_types_named_alike_compiles_and_runs() {
    seal_two_types_named_alike::main();
}

#[path = "system/pass-correct-systems.rs"]
mod system_correct_systems;
#[test]
fn system_correct_systems_compiles_and_runs() {
    system_correct_systems::main();
}

#[path = "condition/pass-no-implicit-prelude.rs"]
mod condition_no_implicit_prelude;
#[test]
fn condition_no_implicit_prelude_compiles_and_runs() {
    condition_no_implicit_prelude::main();
}

#[path = "system/pass-no-implicit-prelude.rs"]
mod system_no_implicit_prelude;
#[test]
fn system_no_implicit_prelude_compiles_and_runs() {
    system_no_implicit_prelude::main();
}

#[path = "system/pass-read-write-overlap.rs"]
mod system_read_write_overlap;
#[test]
fn system_read_write_overlap_compiles_and_runs() {
    system_read_write_overlap::main();
}
