//! The hand-written reference of `nested_speed` emits what `docs/dsl.md`
//! says a nested machine emits (exits innermost first, the transition's own
//! outputs, entries outermost first; overrides, the priority interrupt,
//! local transitions, shallow and deep history), on a sequence written out
//! by hand; `nested_subjects.rs` holds every other implementation to it.

use fsm_bench::nested::{hand_written::Machine, Action, Guards, Output, State};

/// Fire `action` with `guards` and expect `outputs` and the leaf `to`.
fn fire(machine: &mut Machine, action: Action, guards: Guards, outputs: &[Output], to: State) {
    let got = machine.step(action, &guards);
    assert_eq!(got, Ok(outputs), "{action:?} from {:?}", machine.state);
    assert_eq!(machine.state, to, "{action:?}");
}

#[test]
fn the_reference_runs_hooks_along_the_path_and_remembers_history() {
    use Action as A;
    use Output as O;
    use State as S;
    let none = Guards::default();
    let with = |bits| Guards::from_bits(bits);
    let mut m = Machine::new();
    // Entering working enters llm and calling_llm, outermost first.
    fire(
        &mut m,
        A::UserInput,
        none,
        &[O::StartTurn, O::OpenStream, O::SendLlmRequest],
        S::CallingLlm,
    );
    fire(&mut m, A::LlmCompleted, none, &[], S::ProcessingLlmResponse);
    // llm is exited, then the transition, then tools entered.
    fire(
        &mut m,
        A::ResponseExamined,
        with(2),
        &[O::CloseStream, O::ExecuteTools, O::LockWorkspace],
        S::ExecutingTools,
    );
    fire(
        &mut m,
        A::ToolCompleted,
        with(8),
        &[O::RunPostToolsHook],
        S::PostToolsHook,
    );
    // tools' own cancel overrides working's...
    fire(&mut m, A::Cancel, none, &[O::CancelTools], S::PostToolsHook);
    // ... pause, inherited from working, exits both composites...
    fire(
        &mut m,
        A::Pause,
        none,
        &[O::UnlockWorkspace, O::EndTurn, O::SuspendWork],
        S::Paused,
    );
    // ... and deep history comes back to the very leaf.
    fire(
        &mut m,
        A::Resume,
        none,
        &[O::ResumeWork, O::StartTurn, O::LockWorkspace],
        S::PostToolsHook,
    );
    fire(
        &mut m,
        A::Pause,
        none,
        &[O::UnlockWorkspace, O::EndTurn, O::SuspendWork],
        S::Paused,
    );
    // Shallow history: the phase, from its start.
    fire(
        &mut m,
        A::Restart,
        none,
        &[O::ResumeWork, O::StartTurn, O::LockWorkspace],
        S::ExecutingTools,
    );
    // The forced cancel (priority 1 on working) interrupts tools' own.
    fire(
        &mut m,
        A::Cancel,
        with(16),
        &[O::UnlockWorkspace, O::EndTurn, O::AbortWork],
        S::WaitingForUserInput,
    );
    assert_eq!(m.last_working, Some(S::ExecutingTools));
    fire(
        &mut m,
        A::UserInput,
        none,
        &[O::StartTurn, O::OpenStream, O::SendLlmRequest],
        S::CallingLlm,
    );
    // A local transition: llm is left, working is not.
    fire(
        &mut m,
        A::LlmError,
        with(1),
        &[O::CloseStream, O::WaitForInput],
        S::Backoff,
    );
    fire(&mut m, A::Pause, none, &[O::EndTurn, O::SuspendWork], S::Paused);
    fire(
        &mut m,
        A::Restart,
        none,
        &[O::ResumeWork, O::StartTurn],
        S::Backoff,
    );
    fire(
        &mut m,
        A::RetryTimeoutFired,
        none,
        &[O::OpenStream, O::SendLlmRequest],
        S::CallingLlm,
    );
    // any's shutdown exits every level.
    fire(
        &mut m,
        A::ShutdownRequested,
        none,
        &[O::CloseStream, O::EndTurn, O::Shutdown],
        S::ShuttingDown,
    );
    assert_eq!(m.step(A::UserInput, &none), Err(()));
}
