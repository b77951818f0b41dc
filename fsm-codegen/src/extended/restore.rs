//! The machine type's snapshot and restore methods: `snapshot`,
//! `restore_with`, `restore` and, with a context, `restore_with_context`
//! (and, without the `serde` feature, the stubs that say it is needed).

use super::Gen;
use crate::nested::index;
use fsm_grammar::model::{Delay, TimerId};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The pieces the snapshot and restore methods share: what restoring reads
/// from the snapshot besides the state, what the restored machine is built
/// with, and what `snapshot` adds to the snapshot.
struct Restored {
    /// `let deadlines = ...?;`, with timers.
    deadlines: TokenStream,
    /// `let last_active = ...?;` (or the check that none is given), with
    /// nested states.
    memory: TokenStream,
    /// The fields of the restored machine besides its state and context.
    fields: TokenStream,
    /// `.with_timers(...)` and `.with_last_active(...)` on a new snapshot.
    with: TokenStream,
    /// The restore methods' docs on timers.
    doc: TokenStream,
    /// `, clock: K`, `, __fsm::SystemClock` and `, clock`: the clock the
    /// restore methods take, give and pass on, with timers.
    clock_param: TokenStream,
    clock_arg: TokenStream,
    clock_pass: TokenStream,
    /// The type of the restore methods' `policy`: a `FingerprintPolicy`,
    /// or with timers anything that becomes a `RestorePolicy`.
    policy_ty: TokenStream,
    /// With timers, `policy` read as a `RestorePolicy`: its fingerprint
    /// policy as `policy`, and (when the machine has a timer group armed
    /// whenever its state is active) `missing_timers`.
    policy_read: TokenStream,
    /// The missing-timer rule ([`Gen::missing_timers`]), after the
    /// deadlines and the memory are restored.
    missing: TokenStream,
}

impl Gen<'_> {
    /// The snapshot and restore methods, with a context or without.
    pub(super) fn snapshots(&self, generics: &TokenStream, params: &TokenStream) -> TokenStream {
        let restored = self.restored();
        match &self.context {
            Some(ctx) => {
                let with_context = self.restore_with_context(ctx, generics, params, &restored);
                let serde = self.context_snapshots(ctx, generics, params, &restored);
                let stubs = self.context_snapshot_stubs(ctx, generics, params, &restored);
                quote! {
                    #with_context

                    #serde

                    // Without the feature, stubs that no call compiles to: a
                    // call fails on the bound, whose message names the feature
                    // (rather than "no method named `snapshot`", with the advice
                    // to implement `Persist`).
                    #stubs
                }
            }
            None => self.plain_snapshots(generics, params, &restored),
        }
    }

    /// What restoring reads besides the state, and what `snapshot` writes.
    fn restored(&self) -> Restored {
        let timers = self.max_timers > 0;
        let (memory, with_memory) = self.restore_memory();
        let memory_restored = if self.memory.is_empty() {
            TokenStream::new()
        } else {
            quote!(last_active,)
        };
        let (deadlines, deadlines_init, with_timers) = if timers {
            (
                self.restore_deadlines(),
                quote!(clock, deadlines,),
                quote!(.with_timers(self.armed_timers())),
            )
        } else {
            Default::default()
        };
        let missing = self.missing_timers();
        let doc = if timers {
            quote! {
                ///
                /// Armed timers keep the deadlines the snapshot gives them,
                /// however long ago it was taken; the timers of the state it
                /// does not list stay disarmed, except a timer armed whenever
                /// its state is active, which the snapshot lost: `policy`
                /// refuses the snapshot (`MissingTimerPolicy::Refuse`, the
                /// default) or arms the timer from the time of the restore
                /// (`MissingTimerPolicy::Rearm`).
            }
        } else {
            TokenStream::new()
        };
        let (policy_ty, policy_read) = if !timers {
            (quote!(__fsm::FingerprintPolicy), TokenStream::new())
        } else if missing.is_empty() {
            (
                quote!(impl __fsm::Into<__fsm::RestorePolicy>),
                quote!(let __fsm::RestorePolicy { fingerprint: policy, .. } = __fsm::Into::into(policy);),
            )
        } else {
            (
                quote!(impl __fsm::Into<__fsm::RestorePolicy>),
                quote!(let __fsm::RestorePolicy { fingerprint: policy, missing_timers } = __fsm::Into::into(policy);),
            )
        };
        let (clock_param, clock_arg, clock_pass) = if timers {
            let k = &self.clock_param;
            (quote!(, clock: #k), quote!(, __fsm::SystemClock), quote!(, clock))
        } else {
            Default::default()
        };
        Restored {
            deadlines,
            memory,
            fields: quote!(#deadlines_init #memory_restored),
            with: quote!(#with_timers #with_memory),
            doc,
            clock_param,
            clock_arg,
            clock_pass,
            policy_ty,
            policy_read,
            missing,
        }
    }

    /// The missing-timer rule, with timers: the timer groups of the machine
    /// armed whenever their state is active (the model's
    /// `timer_group_always_armed` says which) as a table, in the plan's
    /// order, each group's state, label, deadline slots and index; a group
    /// of an active state of which the snapshot arms no timer is refused, or
    /// re-armed from the clock's time plus its delay
    /// (`Snapshot::missing_timers_in`). Nothing when no group is.
    fn missing_timers(&self) -> TokenStream {
        let mut rows = Vec::new();
        let mut delays = Vec::new();
        for (g, group) in self.plan.timer_groups.iter().enumerate() {
            let timers = group.timers.iter().map(|&(id, _)| id);
            if !self.machine.timer_group_always_armed(group.state, timers) {
                continue;
            }
            let state = &self.machine.state(group.state).name;
            let label = group.label.as_str();
            let slots = group
                .timers
                .iter()
                .map(|&(id, _)| index(self.plan.timer_slots[id.index()]));
            let g = Literal::u32_unsuffixed(g as u32);
            rows.push(quote!((#state, #label, &[#(#slots),*], #g)));
            let delay = match group.delay {
                Delay::Literal(d) => {
                    let millis = Literal::u64_unsuffixed(d.as_millis() as u64);
                    quote!(__fsm::Duration::from_millis(#millis))
                }
                Delay::Named(d) => {
                    let method = &self.delays[d.index()];
                    quote!(Context::#method(&context))
                }
            };
            delays.push(quote!(#g => #delay,));
        }
        if rows.is_empty() {
            return TokenStream::new();
        }
        let n = index(rows.len());
        let here = self.timer_here();
        // The table: each group's state, label, timers' slots and index.
        quote! {
            static ALWAYS_ARMED: [(&str, &str, &[usize], u32); #n] = [#(#rows),*];
            snapshot.missing_timers_in(
                missing_timers,
                &ALWAYS_ARMED,
                |name| #here,
                &mut deadlines,
                || __fsm::Clock::now(&clock),
                |group| match group {
                    #(#delays)*
                    _ => __fsm::Duration::ZERO,
                },
            )?;
        }
    }

    /// Whether a timer of the state `name` may be armed: whether that state
    /// is the current state or (with nested states) a composite around it.
    fn timer_here(&self) -> TokenStream {
        if self.nested {
            quote!(state.name() == name || state.ancestors().iter().any(|r| r.name() == name))
        } else {
            quote!(state.name() == name)
        }
    }

    /// `let deadlines = ...?;`: the deadlines of the timers `snapshot`
    /// lists, each in its slot, refusing a timer the restored state cannot
    /// have armed.
    fn restore_deadlines(&self) -> TokenStream {
        let n = Literal::usize_unsuffixed(self.deadline_slots);
        let mut slot_arms = Vec::new();
        let mut count_arms = Vec::new();
        for s in self.machine.state_ids() {
            let timers: Vec<TimerId> = self.machine.timers_of(s).map(|(id, _)| id).collect();
            if timers.is_empty() {
                continue;
            }
            let name = &self.machine.state(s).name;
            let count = Literal::u32_unsuffixed(timers.len() as u32);
            count_arms.push(quote!(#name => #count,));
        }
        for leaf in self.machine.leaves() {
            let variant = &self.idents.states[leaf.index()];
            for a in self.machine.ancestors_or_self(leaf) {
                let name = &self.machine.state(a).name;
                for (within, (id, _)) in self.machine.timers_of(a).enumerate() {
                    let within = Literal::u32_unsuffixed(within as u32);
                    let slot = index(self.plan.timer_slots[id.index()]);
                    slot_arms.push(quote!((State::#variant, #name, #within) => __fsm::Some(#slot),));
                }
            }
        }
        let here = self.timer_here();
        // Mutable for the missing-timer rule, which may re-arm a timer.
        let binding = if self.missing_timers().is_empty() {
            quote!(deadlines)
        } else {
            quote!(mut deadlines)
        };
        quote! {
            let #binding = snapshot.deadlines_in::<#n>(
                |name, timer| match (state, name, timer) {
                    #(#slot_arms)*
                    _ => __fsm::None,
                },
                |name| {
                    let here = #here;
                    here.then_some(match name {
                        #(#count_arms)*
                        _ => 0,
                    })
                },
            )?;
        }
    }

    /// Restoring the history memory (`let last_active = ...?;`), and
    /// writing it to a snapshot (`.with_last_active(...)`), with nested
    /// states.
    fn restore_memory(&self) -> (TokenStream, TokenStream) {
        if !self.nested {
            return Default::default();
        }
        if self.memory.is_empty() {
            return (
                quote! {
                    // The machine remembers nothing: any `last_active` is wrong.
                    snapshot.last_active_of::<Self, 0>(&[], |_, _| false)?;
                },
                TokenStream::new(),
            );
        }
        let memory_n = index(self.memory.len());
        let names = self.memory.iter().map(|&s| self.machine.state(s).name.as_str());
        (
            quote! {
                let last_active = snapshot.last_active_of::<Self, #memory_n>(&[#(#names),*], |slot, leaf| {
                    leaf.is_in(LAST_ACTIVE_COMPOSITES[slot])
                })?;
            },
            quote! {
                .with_last_active(
                    LAST_ACTIVE_COMPOSITES
                        .iter()
                        .zip(self.last_active)
                        .filter_map(|(composite, leaf)| leaf.map(|leaf| (composite.name(), leaf.name()))),
                )
            },
        )
    }

    /// Without a context: `snapshot`, `restore_with` and `restore` (on the
    /// system clock, with timers only with `std`).
    fn plain_snapshots(
        &self,
        generics: &TokenStream,
        params: &TokenStream,
        restored: &Restored,
    ) -> TokenStream {
        let m = &self.machine_ident;
        let name = &self.machine.name;
        let Restored {
            deadlines,
            memory,
            fields,
            with,
            doc,
            clock_param,
            clock_arg,
            policy_ty,
            policy_read,
            missing,
            ..
        } = restored;
        let restore_from_snapshot_alone = self.if_std_with_timers(quote! {
            impl #m {
                /// The machine in the state of `snapshot`, which must come
                /// from this exact definition.
                ///
                /// # Errors
                ///
                /// As [`Self::restore_with`].
                pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError> {
                    Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict #clock_arg)
                }
            }
        });
        quote! {
            __fsm::if_alloc! {
            impl #generics #m #params {
                /// The current state and armed timers, with the machine's
                /// name and fingerprint, ready to be stored.
                pub fn snapshot(&self) -> __fsm::Snapshot {
                    __fsm::Snapshot::new(#name, <Self as __fsm::Machine>::FINGERPRINT, self.state.name())
                        #with
                }

                /// The machine in the state of `snapshot`; `policy` decides
                /// whether a snapshot of a different definition is accepted.
                #doc
                ///
                /// # Errors
                ///
                /// When the snapshot is of another machine or definition,
                /// names a state this machine does not have, or arms a timer
                /// it does not have.
                pub fn restore_with(
                    snapshot: &__fsm::Snapshot,
                    policy: #policy_ty
                    #clock_param
                ) -> __fsm::Result<Self, __fsm::RestoreError> {
                    #policy_read
                    let state = snapshot.state_of::<Self>(policy)?;
                    #deadlines
                    #memory
                    #missing
                    __fsm::Ok(Self { state, #fields })
                }
            }

            #restore_from_snapshot_alone
            }
        }
    }

    /// With a context: `restore_with_context`, which restores with the
    /// context the caller gives and needs no `serde`.
    fn restore_with_context(
        &self,
        ctx: &TokenStream,
        generics: &TokenStream,
        params: &TokenStream,
        restored: &Restored,
    ) -> TokenStream {
        let m = &self.machine_ident;
        let Restored {
            deadlines,
            memory,
            fields,
            doc,
            clock_param,
            policy_ty,
            policy_read,
            missing,
            ..
        } = restored;
        quote! {
            __fsm::if_alloc! {
            impl #generics #m #params {
                /// The machine in the state of `snapshot`, owning `context`
                /// (whatever context the snapshot carries); `policy` decides
                /// whether a snapshot of a different definition is accepted.
                #doc
                ///
                /// # Errors
                ///
                /// When the snapshot is of another machine or definition,
                /// names a state this machine does not have, or arms a timer
                /// it does not have.
                pub fn restore_with_context(
                    snapshot: &__fsm::Snapshot,
                    policy: #policy_ty,
                    context: #ctx
                    #clock_param
                ) -> __fsm::Result<Self, __fsm::RestoreError> {
                    #policy_read
                    let state = snapshot.state_of::<Self>(policy)?;
                    #deadlines
                    #memory
                    #missing
                    __fsm::Ok(Self { state, context, #fields })
                }
            }
            }
        }
    }

    /// With a context and the `serde` feature: `snapshot`, `restore_with`
    /// and `restore`, the snapshot carrying the context as JSON.
    fn context_snapshots(
        &self,
        ctx: &TokenStream,
        generics: &TokenStream,
        params: &TokenStream,
        restored: &Restored,
    ) -> TokenStream {
        let m = &self.machine_ident;
        let name = &self.machine.name;
        let Restored {
            with,
            clock_param,
            clock_arg,
            clock_pass,
            policy_ty,
            ..
        } = restored;
        // With timers, `policy` read once as a `RestorePolicy`, and passed
        // on whole.
        let (policy_read, fingerprint) = if self.max_timers > 0 {
            (
                quote!(let policy: __fsm::RestorePolicy = __fsm::Into::into(policy);),
                quote!(policy.fingerprint),
            )
        } else {
            (TokenStream::new(), quote!(policy))
        };
        quote! {
            __fsm::if_serde! {
                impl #generics #m #params {
                    /// The current state, context and armed timers, with the
                    /// machine's name and fingerprint, ready to be stored.
                    /// Needs `fsm-runtime`'s `serde` feature (the snapshot
                    /// carries the context as JSON).
                    ///
                    /// # Errors
                    ///
                    /// When the context does not serialize.
                    pub fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError>
                    where
                        for<'a> #ctx: __fsm::Serialize,
                    {
                        __fsm::Snapshot::new(#name, <Self as __fsm::Machine>::FINGERPRINT, self.state.name())
                            #with
                            .with_context_of(&self.context)
                    }

                    /// The machine in the state, context and timers of
                    /// `snapshot`; `policy` decides whether a snapshot of a
                    /// different definition is accepted.
                    /// Needs `fsm-runtime`'s `serde` feature.
                    ///
                    /// # Errors
                    ///
                    /// As [`Self::restore_with_context`], and when the snapshot
                    /// carries no context or one that does not deserialize
                    /// (the error names the field).
                    pub fn restore_with(
                        snapshot: &__fsm::Snapshot,
                        policy: #policy_ty
                        #clock_param
                    ) -> __fsm::Result<Self, __fsm::RestoreError>
                    where
                        for<'a> #ctx: __fsm::DeserializeOwned,
                    {
                        #policy_read
                        snapshot.state_of::<Self>(#fingerprint)?;
                        let context = snapshot.context_as::<#ctx>()?;
                        Self::restore_with_context(snapshot, policy, context #clock_pass)
                    }
                }

                impl #m {
                    /// The machine in the state, context and timers of
                    /// `snapshot`, which must come from this exact definition,
                    /// timed by the system clock.
                    /// Needs `fsm-runtime`'s `serde` feature.
                    ///
                    /// # Errors
                    ///
                    /// As [`Self::restore_with`].
                    pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError>
                    where
                        for<'a> #ctx: __fsm::DeserializeOwned,
                    {
                        Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict #clock_arg)
                    }
                }
            }
        }
    }

    /// With a context and without the `serde` feature: `snapshot`,
    /// `restore_with` and `restore` as stubs whose bound names the feature.
    fn context_snapshot_stubs(
        &self,
        ctx: &TokenStream,
        generics: &TokenStream,
        params: &TokenStream,
        restored: &Restored,
    ) -> TokenStream {
        let m = &self.machine_ident;
        let Restored {
            clock_param,
            policy_ty,
            ..
        } = restored;
        // The bound of the stubs, spanning the `context` declaration, where
        // rustc's "required by this bound" points.
        let needs_serde = match &self.machine.context {
            Some(c) => self.spans.respan(c.span, quote!(__fsm::NeedsSerdeFeature)),
            None => TokenStream::new(),
        };
        quote! {
            __fsm::without_serde! {
                impl #generics #m #params {
                    /// Needs `fsm-runtime`'s `serde` feature, which is off:
                    /// the snapshot of a machine with a context carries the
                    /// context as JSON. A call does not compile, and says so.
                    pub fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError>
                    where
                        for<'a> #ctx: #needs_serde,
                    {
                        __fsm::stub()
                    }

                    /// Needs `fsm-runtime`'s `serde` feature, which is off;
                    /// without it, [`Self::restore_with_context`] restores
                    /// a snapshot with a context the caller gives. A call
                    /// does not compile, and says so.
                    #[allow(unused_variables)]
                    pub fn restore_with(
                        snapshot: &__fsm::Snapshot,
                        policy: #policy_ty
                        #clock_param
                    ) -> __fsm::Result<Self, __fsm::RestoreError>
                    where
                        for<'a> #ctx: #needs_serde,
                    {
                        __fsm::stub()
                    }
                }

                impl #m {
                    /// Needs `fsm-runtime`'s `serde` feature, which is off;
                    /// without it, [`Self::restore_with_context`] restores
                    /// a snapshot with a context the caller gives. A call
                    /// does not compile, and says so.
                    #[allow(unused_variables)]
                    pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError>
                    where
                        for<'a> #ctx: #needs_serde,
                    {
                        __fsm::stub()
                    }
                }
            }
        }
    }
}
