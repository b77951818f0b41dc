//! The stream machine against RFC 9113, section 5.1: one test per arrow of
//! the RFC's state diagram (every label on it), RST_STREAM and connection
//! errors from every active state, the frames each state refuses, and the
//! errors section 5.1 prescribes for them.
//!
//! Every state is reached by firing the frames that lead to it, never by
//! constructing it, so the tests walk the RFC's paths.

use http2_stream::{
    receive, send, Action, Composite, ErrorCode, FireError, Frame, Output, State, Stream, Violation,
};

/// A stream moved from `idle` by `actions`, each of which must fire.
fn after(actions: &[Action]) -> Stream {
    let mut stream = Stream::new();
    for &action in actions {
        stream
            .fire(action)
            .unwrap_or_else(|e| panic!("{action} on the way: {e}"));
    }
    stream
}

/// The shortest way from `idle` to each state, by the diagram's arrows.
fn path_to(state: State) -> &'static [Action] {
    use Action::*;
    match state {
        State::Idle => &[],
        State::ReservedLocal => &[SendPushPromise],
        State::ReservedRemote => &[RecvPushPromise],
        State::Open => &[RecvHeaders],
        State::HalfClosedLocal => &[SendHeaders, SendEndStream],
        State::HalfClosedRemote => &[RecvHeaders, RecvEndStream],
        State::Closed => &[RecvHeaders, RecvRstStream],
    }
}

/// Fire `action` in `from` (reached by its path) and check where it goes and
/// what it emits.
#[track_caller]
fn arrow(from: State, action: Action, to: State, outputs: &[Output]) {
    let mut stream = after(path_to(from));
    assert_eq!(stream.state(), from);
    let fired = stream
        .fire(action)
        .unwrap_or_else(|e| panic!("{from} --{action}-->: {e}"));
    assert_eq!((fired.from, fired.to), (from, to), "{from} --{action}-->");
    assert_eq!(fired.outputs, outputs, "{from} --{action}--> {to}");
    assert_eq!(stream.state(), to);
}

// The arrows of the diagram, top to bottom.

#[test]
fn idle_send_pp_reserved_local() {
    arrow(State::Idle, Action::SendPushPromise, State::ReservedLocal, &[]);
}

#[test]
fn idle_recv_pp_reserved_remote() {
    arrow(
        State::Idle,
        Action::RecvPushPromise,
        State::ReservedRemote,
        &[Output::DeliverPromise],
    );
}

#[test]
fn idle_send_h_or_recv_h_open() {
    // Entering `open` enters `active` and `concurrent`: the stream now
    // counts toward the concurrent stream limit.
    arrow(
        State::Idle,
        Action::SendHeaders,
        State::Open,
        &[Output::AcquireSlot],
    );
    arrow(
        State::Idle,
        Action::RecvHeaders,
        State::Open,
        &[Output::DeliverHeaders, Output::AcquireSlot],
    );
}

#[test]
fn reserved_local_send_h_half_closed_remote() {
    arrow(
        State::ReservedLocal,
        Action::SendHeaders,
        State::HalfClosedRemote,
        &[Output::AcquireSlot],
    );
}

#[test]
fn reserved_remote_recv_h_half_closed_local() {
    arrow(
        State::ReservedRemote,
        Action::RecvHeaders,
        State::HalfClosedLocal,
        &[Output::DeliverHeaders, Output::AcquireSlot],
    );
}

#[test]
fn open_recv_es_half_closed_remote() {
    // Moving inside `concurrent` keeps the slot: no release, no acquire.
    arrow(
        State::Open,
        Action::RecvEndStream,
        State::HalfClosedRemote,
        &[Output::EndOfStream],
    );
}

#[test]
fn open_send_es_half_closed_local() {
    arrow(State::Open, Action::SendEndStream, State::HalfClosedLocal, &[]);
}

#[test]
fn open_send_r_or_recv_r_closed() {
    arrow(
        State::Open,
        Action::SendRstStream,
        State::Closed,
        &[Output::ReleaseSlot, Output::IgnoreLateFrames],
    );
    arrow(
        State::Open,
        Action::RecvRstStream,
        State::Closed,
        &[Output::ReleaseSlot, Output::AbortStream],
    );
}

#[test]
fn half_closed_remote_send_es_or_send_r_or_recv_r_closed() {
    arrow(
        State::HalfClosedRemote,
        Action::SendEndStream,
        State::Closed,
        &[Output::ReleaseSlot],
    );
    arrow(
        State::HalfClosedRemote,
        Action::SendRstStream,
        State::Closed,
        &[Output::ReleaseSlot, Output::IgnoreLateFrames],
    );
    arrow(
        State::HalfClosedRemote,
        Action::RecvRstStream,
        State::Closed,
        &[Output::ReleaseSlot, Output::AbortStream],
    );
}

#[test]
fn half_closed_local_recv_es_or_send_r_or_recv_r_closed() {
    arrow(
        State::HalfClosedLocal,
        Action::RecvEndStream,
        State::Closed,
        &[Output::ReleaseSlot, Output::EndOfStream],
    );
    arrow(
        State::HalfClosedLocal,
        Action::SendRstStream,
        State::Closed,
        &[Output::ReleaseSlot, Output::IgnoreLateFrames],
    );
    arrow(
        State::HalfClosedLocal,
        Action::RecvRstStream,
        State::Closed,
        &[Output::ReleaseSlot, Output::AbortStream],
    );
}

#[test]
fn reserved_local_send_r_or_recv_r_closed() {
    // A reserved stream never counted toward the limit: nothing to release.
    arrow(
        State::ReservedLocal,
        Action::SendRstStream,
        State::Closed,
        &[Output::IgnoreLateFrames],
    );
    arrow(
        State::ReservedLocal,
        Action::RecvRstStream,
        State::Closed,
        &[Output::AbortStream],
    );
}

#[test]
fn reserved_remote_send_r_or_recv_r_closed() {
    arrow(
        State::ReservedRemote,
        Action::SendRstStream,
        State::Closed,
        &[Output::IgnoreLateFrames],
    );
    arrow(
        State::ReservedRemote,
        Action::RecvRstStream,
        State::Closed,
        &[Output::AbortStream],
    );
}

/// The frames that the diagram does not draw because they keep the state:
/// HEADERS and DATA while each side may still send.
#[test]
fn frames_that_keep_the_state() {
    use Action::*;
    for (state, action, outputs) in [
        (State::Open, SendHeaders, &[][..]),
        (State::Open, RecvHeaders, &[Output::DeliverHeaders][..]),
        (State::Open, SendData, &[][..]),
        (State::Open, RecvData, &[Output::DeliverData][..]),
        (State::HalfClosedLocal, RecvHeaders, &[Output::DeliverHeaders][..]),
        (State::HalfClosedLocal, RecvData, &[Output::DeliverData][..]),
        (State::HalfClosedRemote, SendHeaders, &[][..]),
        (State::HalfClosedRemote, SendData, &[][..]),
    ] {
        arrow(state, action, state, outputs);
    }
}

/// RST_STREAM, sent or received, and a connection error close the stream
/// from every state inside `active`, which declares them once; the states
/// that count toward the limit release their slot on the way out.
#[test]
fn rst_stream_and_connection_errors_close_every_active_state() {
    let active: Vec<State> = State::ALL
        .iter()
        .copied()
        .filter(|s| s.is_in(Composite::Active))
        .collect();
    assert_eq!(
        active,
        [
            State::ReservedLocal,
            State::ReservedRemote,
            State::Open,
            State::HalfClosedLocal,
            State::HalfClosedRemote,
        ]
    );
    for &state in &active {
        let release: &[Output] = if state.is_in(Composite::Concurrent) {
            &[Output::ReleaseSlot]
        } else {
            &[]
        };
        for (action, output) in [
            (Action::SendRstStream, Output::IgnoreLateFrames),
            (Action::RecvRstStream, Output::AbortStream),
            (Action::ConnectionError, Output::AbortStream),
        ] {
            let expected: Vec<Output> = release.iter().copied().chain([output]).collect();
            arrow(state, action, State::Closed, &expected);
        }
    }
}

/// Neither `idle` nor `closed` is inside `active`: RST_STREAM on an idle
/// stream is a connection error (RFC 9113, section 6.4), and a closed stream
/// has ended.
#[test]
fn idle_and_closed_inherit_nothing() {
    for action in [
        Action::SendRstStream,
        Action::RecvRstStream,
        Action::ConnectionError,
    ] {
        for state in [State::Idle, State::Closed] {
            let mut stream = after(path_to(state));
            assert!(!stream.can_fire(action), "{action} in {state}");
            assert!(stream.fire(action).is_err());
            assert_eq!(stream.state(), state);
        }
    }
    let mut stream = Stream::new();
    let rejected = receive(&mut stream, Frame::RstStream).unwrap_err();
    assert_eq!(
        rejected.violation,
        Violation::Connection(ErrorCode::ProtocolError)
    );
}

#[test]
fn the_tree_is_the_rfc_grouping() {
    assert_eq!(State::Idle.parent(), None);
    assert_eq!(State::Closed.parent(), None);
    assert_eq!(State::ReservedLocal.parent(), Some(Composite::Active));
    assert_eq!(State::ReservedRemote.parent(), Some(Composite::Active));
    for state in [State::Open, State::HalfClosedLocal, State::HalfClosedRemote] {
        assert_eq!(state.parent(), Some(Composite::Concurrent));
        assert_eq!(state.ancestors(), [Composite::Concurrent, Composite::Active]);
    }
    assert_eq!(Composite::Concurrent.parent(), Some(Composite::Active));
    let stream = after(path_to(State::HalfClosedLocal));
    assert!(stream.is_in(Composite::Active) && stream.is_in(Composite::Concurrent));
    assert!(!stream.is_terminal() && after(path_to(State::Closed)).is_terminal());
}

/// `valid_actions()` of a state inside `active` lists what it inherits.
#[test]
fn valid_actions_include_the_inherited_ones() {
    use Action::*;
    let valid = |state: State| after(path_to(state)).valid_actions().to_vec();
    assert_eq!(
        valid(State::Idle),
        [SendHeaders, RecvHeaders, SendPushPromise, RecvPushPromise]
    );
    assert_eq!(
        valid(State::ReservedLocal),
        [SendHeaders, SendRstStream, RecvRstStream, ConnectionError]
    );
    assert_eq!(
        valid(State::ReservedRemote),
        [RecvHeaders, SendRstStream, RecvRstStream, ConnectionError]
    );
    assert_eq!(
        valid(State::Open),
        [
            SendHeaders,
            RecvHeaders,
            SendRstStream,
            RecvRstStream,
            ConnectionError,
            SendData,
            RecvData,
            SendEndStream,
            RecvEndStream
        ]
    );
    assert_eq!(
        valid(State::HalfClosedLocal),
        [
            RecvHeaders,
            SendRstStream,
            RecvRstStream,
            ConnectionError,
            RecvData,
            RecvEndStream
        ]
    );
    assert_eq!(
        valid(State::HalfClosedRemote),
        [
            SendHeaders,
            SendRstStream,
            RecvRstStream,
            ConnectionError,
            SendData,
            SendEndStream
        ]
    );
    assert_eq!(valid(State::Closed), []);
}

/// Every action a state does not allow is refused without moving, with an
/// error that names the action, the state and the actions it does allow.
#[test]
fn frames_invalid_in_a_state_are_refused_naming_the_valid_ones() {
    for &state in State::ALL {
        let valid = after(path_to(state)).valid_actions();
        for &action in Action::ALL.iter().filter(|a| !valid.contains(a)) {
            let mut stream = after(path_to(state));
            let error = stream.fire(action).unwrap_err();
            assert_eq!(stream.state(), state, "{action} in {state} moved the stream");
            let FireError::InvalidTransition(invalid) = &error else {
                panic!("{action} in {state}: {error}");
            };
            assert_eq!((invalid.state(), invalid.action()), (state, action));
            assert_eq!(invalid.valid(), valid);
            assert_eq!(invalid.terminal(), state == State::Closed);
            let names: Vec<String> = valid.iter().map(|a| format!("`{a}`")).collect();
            let message = error.to_string();
            assert!(
                message.starts_with(&format!("action `{action}` is not valid in state `{state}`")),
                "{message}"
            );
            if !valid.is_empty() {
                assert!(message.ends_with(&names.join(", ")), "{message}");
            }
        }
    }
    // As a user reads it: DATA from a peer that has already ended its side.
    let mut stream = after(path_to(State::HalfClosedRemote));
    assert_eq!(
        stream.fire(Action::RecvData).unwrap_err().to_string(),
        "action `recv_data` is not valid in state `half_closed_remote`; valid actions: \
         `send_headers`, `send_rst_stream`, `recv_rst_stream`, `connection_error`, `send_data`, \
         `send_end_stream`"
    );
}

/// What section 5.1 prescribes for a received frame each state refuses.
#[test]
fn refused_frames_are_the_errors_section_5_1_prescribes() {
    let protocol = Violation::Connection(ErrorCode::ProtocolError);
    for (state, frame, violation) in [
        // idle: anything but HEADERS (or PRIORITY) is a connection error.
        (State::Idle, Frame::Data { end_stream: false }, protocol),
        (State::Idle, Frame::RstStream, protocol),
        // reserved (local): anything but RST_STREAM, PRIORITY, WINDOW_UPDATE.
        (
            State::ReservedLocal,
            Frame::Headers { end_stream: false },
            protocol,
        ),
        (State::ReservedLocal, Frame::Data { end_stream: false }, protocol),
        // reserved (remote): anything but HEADERS, RST_STREAM, PRIORITY.
        (State::ReservedRemote, Frame::Data { end_stream: true }, protocol),
        (State::ReservedRemote, Frame::PushPromise, protocol),
        // half-closed (remote): the peer has ended its side.
        (
            State::HalfClosedRemote,
            Frame::Data { end_stream: false },
            Violation::Stream(ErrorCode::StreamClosed),
        ),
        (
            State::HalfClosedRemote,
            Frame::Headers { end_stream: true },
            Violation::Stream(ErrorCode::StreamClosed),
        ),
        // A PUSH_PROMISE for a stream that is not idle, in any state
        // (section 6.6).
        (State::Open, Frame::PushPromise, protocol),
        (State::HalfClosedLocal, Frame::PushPromise, protocol),
        (State::HalfClosedRemote, Frame::PushPromise, protocol),
        (State::Closed, Frame::PushPromise, protocol),
        // closed: ignored after our RST_STREAM, else up to the endpoint.
        (
            State::Closed,
            Frame::Data { end_stream: false },
            Violation::Closed,
        ),
        (State::Closed, Frame::RstStream, Violation::Closed),
    ] {
        let mut stream = after(path_to(state));
        let rejected = receive(&mut stream, frame).unwrap_err();
        assert_eq!(rejected.violation, violation, "recv {frame} in {state}");
        assert_eq!(stream.state(), state, "recv {frame} in {state} moved the stream");
    }
    let mut stream = Stream::new();
    assert_eq!(
        receive(&mut stream, Frame::Data { end_stream: false })
            .unwrap_err()
            .to_string(),
        "action `recv_data` is not valid in state `idle`; valid actions: `send_headers`, \
         `recv_headers`, `send_push_promise`, `recv_push_promise` (connection error PROTOCOL_ERROR)"
    );
}

/// A frame with END_STREAM fires its own action, then END_STREAM: a request
/// without a body half-closes the stream at once ("the same HEADERS frame can
/// also cause a stream to immediately become half-closed").
#[test]
fn end_stream_on_a_frame_fires_after_it() {
    let mut client = Stream::new();
    let outputs = send(&mut client, Frame::Headers { end_stream: true }).unwrap();
    assert_eq!(outputs, [Output::AcquireSlot]);
    assert_eq!(client.state(), State::HalfClosedLocal);

    let mut server = Stream::new();
    let outputs = receive(&mut server, Frame::Headers { end_stream: true }).unwrap();
    assert_eq!(
        outputs,
        [Output::DeliverHeaders, Output::AcquireSlot, Output::EndOfStream]
    );
    assert_eq!(server.state(), State::HalfClosedRemote);

    // A promised response with no body: reserved straight to closed.
    let mut pushed = after(&[Action::SendPushPromise]);
    let outputs = send(&mut pushed, Frame::Headers { end_stream: true }).unwrap();
    assert_eq!(outputs, [Output::AcquireSlot, Output::ReleaseSlot]);
    assert!(pushed.is_terminal());
}

/// Every state that accepts a HEADERS or DATA frame accepts END_STREAM after
/// it, so a frame with the flag is taken whole or refused whole by its first
/// action; `send` and `receive` also put the stream back if END_STREAM were
/// ever refused.
#[test]
fn a_frame_is_taken_whole_or_not_at_all() {
    use Action::*;
    for &state in State::ALL {
        for (first, end) in [
            (SendHeaders, SendEndStream),
            (SendData, SendEndStream),
            (RecvHeaders, RecvEndStream),
            (RecvData, RecvEndStream),
        ] {
            let mut stream = after(path_to(state));
            if stream.fire(first).is_ok() {
                assert!(stream.can_fire(end), "{first} then {end} from {state}");
            }
        }
    }
    // Refused by its first action: nothing moves, nothing is emitted.
    let mut stream = after(path_to(State::HalfClosedLocal));
    assert!(send(&mut stream, Frame::Data { end_stream: true }).is_err());
    assert_eq!(stream.state(), State::HalfClosedLocal);
}

/// Both peers of one exchange, frame by frame: the client's request with a
/// body, the server's response with trailers.
#[test]
fn a_request_and_its_response_from_both_ends() {
    let mut client = Stream::new();
    let mut server = Stream::new();
    let exchange = [
        (true, Frame::Headers { end_stream: false }),
        (true, Frame::Data { end_stream: true }),
        (false, Frame::Headers { end_stream: false }),
        (false, Frame::Data { end_stream: false }),
        (false, Frame::Headers { end_stream: true }),
    ];
    let mut states = Vec::new();
    for (from_client, frame) in exchange {
        let (sender, receiver) = if from_client {
            (&mut client, &mut server)
        } else {
            (&mut server, &mut client)
        };
        send(sender, frame).unwrap_or_else(|e| panic!("send {frame}: {e}"));
        receive(receiver, frame).unwrap_or_else(|e| panic!("recv {frame}: {e}"));
        states.push((client.state(), server.state()));
    }
    assert_eq!(
        states,
        [
            (State::Open, State::Open),
            (State::HalfClosedLocal, State::HalfClosedRemote),
            (State::HalfClosedLocal, State::HalfClosedRemote),
            (State::HalfClosedLocal, State::HalfClosedRemote),
            (State::Closed, State::Closed),
        ]
    );
}
