//! Three streams frame by frame: a client's request and response, a server
//! push that the client refuses, and frames the streams' states do not
//! allow. Run it with `cargo run -p http2-stream`.

use http2_stream::{receive, send, Frame, Output, Stream};

fn show(outputs: &[Output]) -> String {
    if outputs.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = outputs.iter().map(|o| o.name()).collect();
        format!(" (emit {})", names.join(", "))
    }
}

fn main() {
    println!("a client's GET, and the response:");
    let mut stream = Stream::new();
    let steps = [
        ("send", Frame::Headers { end_stream: true }),
        ("recv", Frame::Headers { end_stream: false }),
        ("recv", Frame::Data { end_stream: false }),
        ("recv", Frame::Data { end_stream: true }),
    ];
    for (direction, frame) in steps {
        let from = stream.state();
        let outputs = match direction {
            "send" => send(&mut stream, frame).expect("the client follows the protocol"),
            _ => receive(&mut stream, frame).expect("the server follows the protocol"),
        };
        println!(
            "  {from} --{direction} {frame}--> {}{}",
            stream.state(),
            show(&outputs)
        );
    }

    println!();
    println!("a pushed response the client refuses:");
    let mut pushed = Stream::new();
    for (direction, frame) in [("recv", Frame::PushPromise), ("send", Frame::RstStream)] {
        let from = pushed.state();
        let outputs = match direction {
            "send" => send(&mut pushed, frame).expect("refusing a push is allowed"),
            _ => receive(&mut pushed, frame).expect("the push is allowed"),
        };
        println!(
            "  {from} --{direction} {frame}--> {}{}",
            pushed.state(),
            show(&outputs)
        );
    }

    println!();
    println!("frames the state does not allow:");
    let mut idle = Stream::new();
    let mut half_closed = Stream::new();
    receive(&mut half_closed, Frame::Headers { end_stream: true }).expect("a request");
    for (stream, frame) in [
        (&mut idle, Frame::Data { end_stream: false }),
        (&mut half_closed, Frame::Data { end_stream: false }),
    ] {
        let from = stream.state();
        match receive(stream, frame) {
            Ok(outputs) => println!("  {from}: accepted{}", show(&outputs)),
            Err(rejected) => {
                println!("  {from}, recv {frame}: {}", rejected.violation);
                println!("    {}", rejected.error);
            }
        }
    }
}
