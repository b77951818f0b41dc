//! The engine's lock: one atomic read-modify-write per `fire`.
//!
//! `std::sync::Mutex` pays two: the `lock cmpxchg` that takes it and the
//! `xchg` that releases it (it must learn whether a thread sleeps on the
//! futex, to wake it). On `data_speed` those two atomics and the poison
//! check were about an eighth of a `fire`. This lock is released with a
//! plain store, so nothing tells it about waiters; instead a waiter never
//! sleeps waiting for a wake-up: it spins briefly (the engine holds the lock
//! for tens of nanoseconds), then yields, then sleeps in steps that double
//! up to [`MAX_SLEEP`] and tries again after each. No wake-up can be lost,
//! because none is ever sent; the price is that under sustained contention
//! with a slow guard or effect a waiter may notice the lock free up to
//! [`MAX_SLEEP`] late, while using no CPU.
//!
//! No poisoning: the engine only writes its state once the guards and
//! effects ran, so a panic in one of them leaves it consistent, and the
//! guard releases the lock as the panic unwinds.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The longest a waiter sleeps between two attempts.
pub(crate) const MAX_SLEEP: Duration = Duration::from_millis(1);

/// A value behind the lock.
pub(crate) struct Lock<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the lock hands out access to the value to one thread at a time
// (`locked` is taken with `Acquire` and released with `Release`), so sharing
// the lock only requires that the value may move between threads, as for
// `std::sync::Mutex`.
unsafe impl<T: Send> Sync for Lock<T> {}

// As for `std::sync::Mutex` (whose poisoning the engine ignores anyway): a
// panic under the lock releases it, and the engine documents what state a
// panicking guard or effect leaves behind.
impl<T> std::panic::UnwindSafe for Lock<T> {}
impl<T> std::panic::RefUnwindSafe for Lock<T> {}

/// Access to the value while the lock is held; releases it when dropped
/// (also while a panic unwinds).
pub(crate) struct LockGuard<'a, T> {
    lock: &'a Lock<T>,
    /// `Send` and `Sync` as `&mut T` is.
    _access: PhantomData<&'a mut T>,
}

impl<T> Lock<T> {
    pub(crate) const fn new(value: T) -> Self {
        Lock {
            locked: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// Take the lock, waiting for it as the module says.
    #[inline]
    pub(crate) fn lock(&self) -> LockGuard<'_, T> {
        if self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.lock_contended();
        }
        self.guard()
    }

    /// Take the lock if it is free.
    pub(crate) fn try_lock(&self) -> Option<LockGuard<'_, T>> {
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
            .then(|| self.guard())
    }

    /// The value, taking the lock apart.
    pub(crate) fn into_inner(self) -> T {
        self.value.into_inner()
    }

    /// The guard of the lock just taken.
    #[inline]
    fn guard(&self) -> LockGuard<'_, T> {
        LockGuard {
            lock: self,
            _access: PhantomData,
        }
    }

    #[cold]
    #[inline(never)]
    fn lock_contended(&self) {
        let mut attempt = 0u32;
        loop {
            // Wait until it looks free before trying to take it again, so
            // waiters read the line instead of writing it.
            while self.locked.load(Ordering::Relaxed) {
                pause(attempt);
                attempt = attempt.saturating_add(1);
            }
            if self
                .locked
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
        }
    }
}

/// The wait before looking at the lock again, after `attempt` looks: spin
/// for the first few, then yield the processor, then sleep 1 µs, 2 µs, ...
/// up to [`MAX_SLEEP`].
fn pause(attempt: u32) {
    const SPINS: u32 = 64;
    const YIELDS: u32 = SPINS + 16;
    if attempt < SPINS {
        std::hint::spin_loop();
    } else if attempt < YIELDS {
        std::thread::yield_now();
    } else {
        let micros = 1u64 << (attempt - YIELDS).min(10);
        std::thread::sleep(Duration::from_micros(micros).min(MAX_SLEEP));
    }
}

impl<T> Deref for LockGuard<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock, so no other access exists.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for LockGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock, so no other access exists.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for LockGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.lock.locked.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn excludes_other_threads() {
        // A non-atomic read-modify-write under the lock: any overlap between
        // two holders would lose increments.
        let lock = Arc::new(Lock::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let lock = Arc::clone(&lock);
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        let mut value = lock.lock();
                        let read = *value;
                        std::hint::black_box(&read);
                        *value = read + 1;
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().expect("no panic");
        }
        assert_eq!(
            Arc::try_unwrap(lock).ok().expect("one owner").into_inner(),
            80_000
        );
    }

    #[test]
    fn a_waiter_gets_the_lock_after_a_long_hold() {
        // Held for longer than the waiter spins and yields: it must go on
        // to sleep and still take the lock once it is released.
        let lock = Arc::new(Lock::new(0u32));
        let held = lock.lock();
        let waiter = {
            let lock = Arc::clone(&lock);
            std::thread::spawn(move || *lock.lock() += 1)
        };
        std::thread::sleep(Duration::from_millis(20));
        drop(held);
        waiter.join().expect("no panic");
        assert_eq!(*lock.lock(), 1);
    }

    #[test]
    fn try_lock_fails_while_held_and_a_panic_releases() {
        let lock = Lock::new(1u8);
        let held = lock.lock();
        assert!(lock.try_lock().is_none());
        drop(held);
        assert!(lock.try_lock().is_some());
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _held = lock.lock();
            panic!("a guard that panics");
        }));
        assert!(unwound.is_err());
        assert_eq!(*lock.try_lock().expect("released while unwinding"), 1);
    }
}
