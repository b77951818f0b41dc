// A missing file with no similar name beside it: the stub is named after the
// file, so code that names the machine by the convention adds no error.
use fsm_runtime::fsm;

fsm!(file = "machines/turnstile.fsm");

fn main() {
    let _turnstile = turnstile::Turnstile::new();
}
