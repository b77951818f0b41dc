//! The machine type's snapshot and restore methods: `snapshot`,
//! `restore_with`, `restore` and, with a context, `restore_with_context`
//! (and, without the `serde` feature, the stubs that say it is needed).

use super::Gen;
use crate::nested::index;
use fsm_grammar::model::TimerId;
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
        let doc = if timers {
            quote! {
                ///
                /// Armed timers keep the deadlines the snapshot gives them,
                /// however long ago it was taken; the timers of the state it
                /// does not list stay disarmed.
            }
        } else {
            TokenStream::new()
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
        // Where a timer of the state `name` may be armed: in the
        // current state, or (with nested states) a composite around it.
        let here = if self.nested {
            quote!(state.name() == name || state.ancestors().iter().any(|r| r.name() == name))
        } else {
            quote!(state.name() == name)
        };
        quote! {
            let deadlines = snapshot.deadlines_in::<#n>(
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
                    policy: __fsm::FingerprintPolicy
                    #clock_param
                ) -> __fsm::Result<Self, __fsm::RestoreError> {
                    let state = snapshot.state_of::<Self>(policy)?;
                    #deadlines
                    #memory
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
                    policy: __fsm::FingerprintPolicy,
                    context: #ctx
                    #clock_param
                ) -> __fsm::Result<Self, __fsm::RestoreError> {
                    let state = snapshot.state_of::<Self>(policy)?;
                    #deadlines
                    #memory
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
            ..
        } = restored;
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
                        policy: __fsm::FingerprintPolicy
                        #clock_param
                    ) -> __fsm::Result<Self, __fsm::RestoreError>
                    where
                        for<'a> #ctx: __fsm::DeserializeOwned,
                    {
                        snapshot.state_of::<Self>(policy)?;
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
        let clock_param = &restored.clock_param;
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
                        policy: __fsm::FingerprintPolicy
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
