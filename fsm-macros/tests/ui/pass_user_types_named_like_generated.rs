// A context or payload type may be named like an item generated in the
// machine's module (`State`, `Configuration`, the machine itself...): it is
// the user's type, never the generated one.
#![deny(warnings)]

#[derive(Default)]
pub struct State {
    count: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Configuration(u32);
#[derive(Clone, Debug, PartialEq)]
pub struct Host(&'static str);
#[derive(Clone, Debug, PartialEq)]
pub struct AnyState;
#[derive(Clone, Debug, PartialEq)]
pub struct Fired;
#[derive(Clone, Debug, PartialEq)]
pub struct Output;
#[derive(Clone, Debug, PartialEq)]
pub struct Split;

fsm_runtime::fsm! {
    #[allow(dead-end)]
    machine Split {
        context State;
        action go(Configuration), host(Host), any(AnyState), fired(Fired), output(Output), split(Split);
        effect count(Configuration);
        initial parallel state both {
            state left {
                initial state l1 { on go -> l2 do count; }
                state l2 { on host -> l1; on any -> l1; }
            }
            state right {
                initial state r1 { on go -> r2; }
                state r2 { on fired -> r1; on output -> r1; on split -> r1; }
            }
        }
    }
}

impl split::Context for State {
    fn count(&mut self, by: &Configuration) {
        self.count += by.0;
    }
}

fn main() {
    let mut machine = split::Split::new(State::default());
    machine.fire(split::Event::Go(Configuration(2))).expect("both regions take `go`");
    assert_eq!(machine.context().count, 2);
    machine.fire(split::Event::Host(Host("h"))).expect("left takes `host`");
    machine.fire(split::Event::Split(Split)).expect("right takes `split`");
    let _: &State = machine.context();
}
