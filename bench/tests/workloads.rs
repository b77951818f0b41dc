//! The benchmarks' workloads are what their docs say they are.

use fsm_bench::agent::Action;
use fsm_bench::{adversarial, compile_bench, trace};

#[test]
fn compile_bench_machine_checks_clean_at_its_size() {
    for variant in [false, true] {
        let checked = fsm_grammar::check(&compile_bench::fsm_machine(variant));
        assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
        let machine = &checked.model.machines[0];
        assert_eq!(machine.states.len(), compile_bench::STATES);
        assert_eq!(machine.transitions.len(), compile_bench::TRANSITIONS);
    }
}

#[test]
fn compile_bench_variants_differ_in_one_line_of_each_source() {
    let differing = |a: &str, b: &str| a.lines().zip(b.lines()).filter(|(x, y)| x != y).count();
    let (fsm_a, fsm_b) = (
        compile_bench::fsm_machine(false),
        compile_bench::fsm_machine(true),
    );
    assert_eq!(differing(&fsm_a, &fsm_b), 1);
    let (sm_a, sm_b) = (compile_bench::smlang_lib(false), compile_bench::smlang_lib(true));
    assert_eq!(differing(&sm_a, &sm_b), 1);
    let smlang_transitions = sm_a.lines().filter(|l| l.contains(" + ")).count();
    assert_eq!(smlang_transitions, compile_bench::TRANSITIONS);
}

#[test]
fn adversarial_shapes_report_what_they_are_built_to() {
    let n = 40;
    let count = |text: String| fsm_grammar::check(&text).diagnostics.len();
    assert_eq!(count(adversarial::any_block(n)), 0);
    assert_eq!(count(adversarial::guarded_candidates(n)), 0);
    assert_eq!(count(adversarial::unknown_targets(n)), n);
    assert_eq!(count(adversarial::undeclared_actions(n)), n);
}

#[test]
fn traces_are_deterministic_and_end_in_shutdown() {
    let a = trace::generate(10_000, 10, trace::SEED);
    let b = trace::generate(10_000, 10, trace::SEED);
    assert_eq!(a.steps, b.steps);
    assert_eq!(a.steps.last().unwrap().action, Action::ShutdownRequested);
    assert!((800..1200).contains(&a.rejected), "{} rejected", a.rejected);
    assert_eq!(trace::generate(10_000, 0, trace::SEED).rejected, 0);
}
