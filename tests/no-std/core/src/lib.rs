//! Generated machines without the standard library or an allocator: a
//! context, payloads, a guard on a payload, effects, nested states with a
//! history target, and timers on a clock this crate supplies (a tick count
//! in milliseconds, as a hardware timer gives it); and parallel states.
//!
//! `#![no_std]` with its own panic handler: if `std` were linked, its panic
//! handler would collide with this one and the build would fail.

#![no_std]

use core::fmt::{self, Write};
use core::sync::atomic::{AtomicU64, Ordering};
use core::time::Duration;
use fsm_runtime::{Clock, FireError, Timestamp};

fsm_runtime::fsm! {
    /// A job: queued until started with a positive size, then fetching and
    /// processing within its budget, parked when the budget runs out, and
    /// resumed where it was.
    machine Job {
        context Work;
        action start(u32), done, park, resume, tick;
        guard positive(u32);
        effect note(u32), count;
        delay budget;
        output started, timed_out, finished;

        initial state queued { on start [positive] -> work do note emit started; }
        state work {
            after budget -> parked emit timed_out;
            on park -> parked;
            on tick do count;
            initial state fetch { on done -> process; after 500ms -> process; }
            state process { on done -> complete emit finished; }
        }
        state parked { on resume -> work.history; }
        terminal state complete;
    }
}

fsm_runtime::fsm! {
    /// The smallest useful machine, to measure what `fire` costs in bytes.
    machine Door {
        initial state closed { on open -> opened; on lock -> locked emit engage_bolt; }
        state opened { on close -> closed; }
        state locked { on unlock -> closed emit release_bolt; }
    }
}

fsm_runtime::fsm! {
    /// Two regions at once: what plays and how loud, with a guard asking
    /// the other region, and a timer in one region.
    machine Player {
        initial parallel state on {
            on off -> off;
            state playback {
                initial state stopped { on play -> playing emit start_audio; }
                state playing { on pause -> stopped; after 3s -> stopped emit auto_stop; }
            }
            state volume {
                initial state quiet { on louder [in(playing)] -> loud emit raise_volume; }
                state loud { on softer -> quiet; }
            }
        }
        terminal state off;
    }
}

/// What the effects wrote, and the budget.
pub struct Work {
    size: u32,
    ticks: u32,
    budget_ms: u64,
}

impl job::Context for Work {
    fn positive(&self, size: &u32) -> bool {
        *size > 0
    }

    fn note(&mut self, size: &u32) {
        self.size = *size;
    }

    fn count(&mut self) {
        self.ticks += 1;
    }

    fn budget(&self) -> Duration {
        Duration::from_millis(self.budget_ms)
    }
}

/// Milliseconds since boot, as a hardware timer would count them.
static TICKS: AtomicU64 = AtomicU64::new(0);

/// The clock the machine runs on: [`TICKS`].
#[derive(Clone, Copy, Default)]
pub struct Ticks;

impl Clock for Ticks {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(TICKS.load(Ordering::Relaxed)).unwrap_or(Timestamp::MAX)
    }
}

fn advance(millis: u64) {
    TICKS.fetch_add(millis, Ordering::Relaxed);
}

/// Text written into a fixed buffer: an error's message, without an allocator.
struct Buffer {
    bytes: [u8; 256],
    len: usize,
}

impl Buffer {
    fn of(value: impl fmt::Display) -> Buffer {
        let mut buffer = Buffer { bytes: [0; 256], len: 0 };
        // A message longer than the buffer fails the comparison below.
        let _ = write!(buffer, "{value}");
        buffer
    }

    fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl Write for Buffer {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let end = self.len + text.len();
        self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?.copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

use job::{Event, Job, Output, State};

/// Runs the machine through every feature; `0` when all is well, else the
/// number of the first check that failed.
#[no_mangle]
pub extern "C" fn fsm_no_std_check() -> u32 {
    match run() {
        Ok(()) => 0,
        Err(check) => check,
    }
}

fn run() -> Result<(), u32> {
    let check = |ok: bool, number: u32| if ok { Ok(()) } else { Err(number) };
    let mut job: Job<Ticks> = Job::with_clock(Work { size: 0, ticks: 0, budget_ms: 10_000 }, Ticks);

    // A guard on a payload rejects, and the event comes back.
    let error = job.fire(Event::Start(0)).err().ok_or(1u32)?;
    check(matches!(&error, FireError::GuardRejected(_)), 2)?;
    check(matches!(error.into_event(), Event::Start(0)), 3)?;

    let fired = job.fire(Event::Start(7)).map_err(|_| 4u32)?;
    check(fired.outputs == [Output::Started], 5)?;
    check(job.state() == State::Fetch && job.is_in(job::Composite::Work), 6)?;
    check(job.context().size == 7, 7)?;
    job.fire(Event::Tick).map_err(|_| 8u32)?;
    check(job.context().ticks == 1, 9)?;

    // The inner timer fires on the caller's clock, not before its deadline.
    advance(499);
    check(job.fire_next_due().is_none(), 10)?;
    advance(1);
    let timer = job.fire_next_due().ok_or(11u32)?.map_err(|_| 12u32)?;
    check((timer.from, timer.to) == (State::Fetch, State::Process), 13)?;

    // The composite's budget parks the job; resuming goes back to `process`.
    advance(9_500);
    let timer = job.fire_next_due().ok_or(14u32)?.map_err(|_| 15u32)?;
    check(timer.to == State::Parked && timer.outputs == [Output::TimedOut], 16)?;
    job.fire(Event::Resume).map_err(|_| 17u32)?;
    check(job.state() == State::Process, 18)?;
    check(job.valid_actions().len() == 3, 19)?;

    // An invalid action says what was valid, formatted without allocating.
    job.fire(Event::Done).map_err(|_| 20u32)?;
    let error = job.fire(Event::Tick).err().ok_or(21u32)?;
    check(
        Buffer::of(&error).as_str() == "action `tick` is not valid in state `complete`: the state is terminal",
        22,
    )?;
    check(job.is_terminal() && job.next_deadline().is_none(), 23)?;

    // A machine with parallel states: a region's step, `in(...)` across
    // regions, and a refusal that names the configuration.
    let mut player = player::Player::with_clock(Ticks);
    check(player.fire(player::Action::Louder).is_err(), 25)?;
    let fired = player.fire(player::Action::Play).map_err(|_| 26u32)?;
    check(fired.outputs[..] == [player::Output::StartAudio], 27)?;
    let fired = player.fire(player::Action::Louder).map_err(|_| 28u32)?;
    check(fired.outputs[..] == [player::Output::RaiseVolume], 29)?;
    check(player.configuration().volume() == Some(player::regions::Volume::Loud), 30)?;
    let error = player.fire(player::Action::Play).err().ok_or(31u32)?;
    check(
        Buffer::of(error).as_str()
            == "action `play` is not valid in configuration [`playing`, `loud`]; valid actions: `off`, `pause`, `softer`",
        32,
    )?;
    advance(3_000);
    let mut stopped = false;
    let count = player.fire_due(|result| {
        stopped = matches!(result, Ok(f) if f.outputs[..] == [player::Output::AutoStop]);
    });
    check(count == 1 && stopped && player.next_deadline().is_none(), 33)?;

    // The plain machine, through the exported `door_fire`.
    check(door_fire(0, 1) == 2 && door_fire(2, 0) == 255 && door_fire(2, 3) == 0, 24)?;
    Ok(())
}

/// `Door::fire` from state number `state` with action number `action`: the
/// new state's number, or 255 when the action is not valid. Exported so that
/// its size in bytes can be read from the library (docs/embedded.md).
#[no_mangle]
pub extern "C" fn door_fire(state: u8, action: u8) -> u8 {
    use door::{Action, Door, State};
    let (Some(&state), Some(&action)) = (State::ALL.get(usize::from(state)), Action::ALL.get(usize::from(action)))
    else {
        return 255;
    };
    let mut door = Door::from_state(state);
    match door.fire(action) {
        Ok(_) => State::ALL.iter().position(|&s| s == door.state()).map_or(255, |i| i as u8),
        Err(_) => 255,
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
