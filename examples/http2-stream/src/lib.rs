//! The lifecycle of an HTTP/2 stream (RFC 9113, section 5.1), with nested
//! states: RST_STREAM and connection errors close the stream from every
//! state but `idle` and `closed`, and `stream.fsm` says so once, on the
//! composite `active` that holds those states, instead of in each of them.
//!
//! ```text
//! idle                        initial
//! active                      RST_STREAM (sent or received), connection error -> closed
//!   reserved_local
//!   reserved_remote
//!   concurrent                enter: acquire_slot, exit: release_slot
//!     open                    initial
//!     half_closed_local
//!     half_closed_remote
//! closed                      terminal
//! ```
//!
//! The machine is generated at the root of this crate with `module = self`,
//! so it is `http2_stream::Stream`, not `http2_stream::stream::Stream`. Its
//! actions are the frames of the RFC's diagram, one per direction
//! (`send_headers`, `recv_rst_stream`, ...), with END_STREAM as actions of
//! its own, as the diagram draws it. [`Frame`] is what travels on the wire;
//! [`receive`] and [`send`] fire the actions a frame stands for, and
//! [`receive`] turns a frame the stream's state does not allow into the
//! error section 5.1 prescribes for that state ([`Violation`]).
//!
//! ```
//! use http2_stream::{receive, send, Composite, Frame, Output, State, Stream};
//!
//! // A server: a request without a body, then the response.
//! let mut stream = Stream::new();
//! let outputs = receive(&mut stream, Frame::Headers { end_stream: true })?;
//! assert_eq!(outputs, [Output::DeliverHeaders, Output::AcquireSlot, Output::EndOfStream]);
//! assert_eq!(stream.state(), State::HalfClosedRemote);
//! assert!(stream.is_in(Composite::Concurrent));
//!
//! send(&mut stream, Frame::Headers { end_stream: false }).unwrap();
//! let outputs = send(&mut stream, Frame::Data { end_stream: true }).unwrap();
//! assert_eq!(outputs, [Output::ReleaseSlot]);
//! assert!(stream.is_terminal());
//! # Ok::<(), http2_stream::Rejected>(())
//! ```

use std::fmt;

fsm_runtime::fsm!(file = "stream.fsm", module = self);

/// A frame on one stream, as far as the stream's state is concerned.
///
/// HEADERS stands for a HEADERS frame with its CONTINUATION frames. A
/// PUSH_PROMISE frame travels on the stream it is associated with; here it
/// is the frame as the *promised* stream sees it, which the RFC's diagram
/// draws. PRIORITY and WINDOW_UPDATE are not here: they never change a
/// stream's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Frame {
    /// HEADERS, with or without the END_STREAM flag.
    Headers {
        /// The END_STREAM flag.
        end_stream: bool,
    },
    /// DATA, with or without the END_STREAM flag.
    Data {
        /// The END_STREAM flag.
        end_stream: bool,
    },
    /// PUSH_PROMISE, promising this stream.
    PushPromise,
    /// RST_STREAM.
    RstStream,
}

/// The frame as the RFC writes it: `HEADERS`, `DATA+END_STREAM`, ...
impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, end_stream) = match *self {
            Frame::Headers { end_stream } => ("HEADERS", end_stream),
            Frame::Data { end_stream } => ("DATA", end_stream),
            Frame::PushPromise => ("PUSH_PROMISE", false),
            Frame::RstStream => ("RST_STREAM", false),
        };
        f.write_str(name)?;
        if end_stream {
            f.write_str("+END_STREAM")?;
        }
        Ok(())
    }
}

/// Which way a frame goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// This endpoint sends the frame.
    Send,
    /// This endpoint receives it.
    Recv,
}

impl Frame {
    /// The machine's actions for this frame going `direction`, in the order
    /// they fire: the frame's own, then END_STREAM when the flag is set.
    pub fn actions(self, direction: Direction) -> (Action, Option<Action>) {
        use Direction::{Recv, Send};
        let end = |end_stream: bool| {
            end_stream.then_some(match direction {
                Send => Action::SendEndStream,
                Recv => Action::RecvEndStream,
            })
        };
        match (self, direction) {
            (Frame::Headers { end_stream }, Send) => (Action::SendHeaders, end(end_stream)),
            (Frame::Headers { end_stream }, Recv) => (Action::RecvHeaders, end(end_stream)),
            (Frame::Data { end_stream }, Send) => (Action::SendData, end(end_stream)),
            (Frame::Data { end_stream }, Recv) => (Action::RecvData, end(end_stream)),
            (Frame::PushPromise, Send) => (Action::SendPushPromise, None),
            (Frame::PushPromise, Recv) => (Action::RecvPushPromise, None),
            (Frame::RstStream, Send) => (Action::SendRstStream, None),
            (Frame::RstStream, Recv) => (Action::RecvRstStream, None),
        }
    }
}

/// The error codes of RFC 9113, section 7, that section 5.1 prescribes for
/// frames a stream's state does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `PROTOCOL_ERROR` (0x01).
    ProtocolError,
    /// `STREAM_CLOSED` (0x05).
    StreamClosed,
}

/// The code's name in the RFC: `PROTOCOL_ERROR`, `STREAM_CLOSED`.
impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorCode::ProtocolError => "PROTOCOL_ERROR",
            ErrorCode::StreamClosed => "STREAM_CLOSED",
        })
    }
}

/// What section 5.1 makes of a received frame that the stream's state does
/// not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Violation {
    /// A connection error (section 5.4.1): send GOAWAY with this code and
    /// close the connection; fire `connection_error` on every active stream.
    Connection(ErrorCode),
    /// A stream error (section 5.4.2): send RST_STREAM with this code, which
    /// is firing `send_rst_stream` on this stream.
    Stream(ErrorCode),
    /// The stream is closed. Ignore the frame if this endpoint closed it
    /// with RST_STREAM (it emitted `ignore_late_frames`); otherwise the
    /// endpoint may treat it as a connection error of type STREAM_CLOSED.
    Closed,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Connection(code) => write!(f, "connection error {code}"),
            Violation::Stream(code) => write!(f, "stream error {code}"),
            Violation::Closed => f.write_str("frame on a closed stream"),
        }
    }
}

impl Violation {
    /// The violation of receiving `frame`, which the stream does not allow
    /// in `state`, by the rules of section 5.1 for each state.
    pub fn of(frame: Frame, state: State) -> Violation {
        if frame == Frame::PushPromise {
            // Section 6.6: a PUSH_PROMISE that promises a stream that is not
            // idle "MUST" be "a connection error of type PROTOCOL_ERROR",
            // whatever state the promised stream is in.
            return Violation::Connection(ErrorCode::ProtocolError);
        }
        match state {
            // "Receiving any frame other than HEADERS or PRIORITY on a stream
            // in this state MUST be treated as a connection error of type
            // PROTOCOL_ERROR", and alike for both reserved states.
            State::Idle | State::ReservedLocal | State::ReservedRemote => {
                Violation::Connection(ErrorCode::ProtocolError)
            }
            // "If an endpoint receives additional frames, other than
            // WINDOW_UPDATE, PRIORITY, or RST_STREAM, for a stream that is
            // in this state, it MUST respond with a stream error of type
            // STREAM_CLOSED."
            State::HalfClosedRemote => Violation::Stream(ErrorCode::StreamClosed),
            State::Closed => Violation::Closed,
            // Open and half-closed (local) accept every frame of the peer's
            // but PUSH_PROMISE (above); should the machine ever refuse one,
            // it is a stream error.
            State::Open | State::HalfClosedLocal => Violation::Stream(ErrorCode::ProtocolError),
        }
    }
}

/// A received frame the stream's state does not allow: what to do about it,
/// and the machine's error, which names the frames the state does allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// What section 5.1 prescribes.
    pub violation: Violation,
    /// The machine's refusal of the first action that was not valid.
    pub error: FireError,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.error, self.violation)
    }
}

impl std::error::Error for Rejected {}

/// Fire the actions of a frame this endpoint receives, and give the outputs
/// to perform, in order. A frame the stream's state does not allow changes
/// nothing and is the [`Violation`] section 5.1 prescribes.
///
/// # Errors
///
/// When the stream's state does not allow the frame.
pub fn receive(stream: &mut Stream, frame: Frame) -> Result<Vec<Output>, Rejected> {
    let state = stream.state();
    fire_frame(stream, frame, Direction::Recv).map_err(|error| Rejected {
        violation: Violation::of(frame, state),
        error,
    })
}

/// Fire the actions of a frame this endpoint sends, and give the outputs to
/// perform, in order. An error means the endpoint was about to break the
/// protocol ("an endpoint MUST NOT send ..."): don't send the frame.
///
/// # Errors
///
/// When the stream's state does not allow sending the frame.
pub fn send(stream: &mut Stream, frame: Frame) -> Result<Vec<Output>, FireError> {
    fire_frame(stream, frame, Direction::Send)
}

/// Both actions of a frame, or neither: the machine holds its state alone, so a frame
/// whose END_STREAM is refused leaves the stream as it found it.
fn fire_frame(stream: &mut Stream, frame: Frame, direction: Direction) -> Result<Vec<Output>, FireError> {
    let before = *stream;
    let (action, end_stream) = frame.actions(direction);
    let mut outputs = stream.fire(action)?.outputs.to_vec();
    if let Some(end_stream) = end_stream {
        match stream.fire(end_stream) {
            Ok(fired) => outputs.extend_from_slice(fired.outputs),
            Err(error) => {
                *stream = before;
                return Err(error);
            }
        }
    }
    Ok(outputs)
}
