//! Run conditions: read-only functions of the world that decide whether a system runs, and the
//! [`RunIf`] trees (`and`, `or`, `not`) a schedule evaluates.
//!
//! `#[condition(reads(..))]` (in `rota-macros`) makes a function returning `bool` a
//! [`Condition`] the way `#[system]` makes a [`System`](super::System): a marker type with
//! exactly the declared `Reads` impls, parameters checked against them by type, and a
//! descriptor built from the same list. A condition only reads: it declares nothing else, and a
//! parameter that writes (`ResMut`, `&mut T`) or records commands fails a `const` naming the
//! condition. `Condition` is sealed like `System`.
//!
//! A schedule evaluates a system's `RunIf` immediately before the system's batch runs, on the
//! world as it is then; the reads of its conditions are added to the system's reads, so the
//! plan orders a condition like a reader against every writer of what it reads.

use std::any::TypeId;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use super::{DeclaredAccess, SystemContext, SystemDescriptor};
use crate::commands::CommandQueue;
use crate::world::World;

/// A run condition: implemented by `#[condition]` for the condition's (unnameable) marker type,
/// and sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a run condition",
    label = "not a run condition",
    note = "write the condition as a function with `#[condition(reads(..))]` returning `bool`, and pass the function itself: `run_if(is_day)`"
)]
pub trait Condition: super::sealed::ConditionSeal + Send + Sync + 'static {
    /// The condition's name.
    const NAME: &'static str;
    /// Per-condition state (its `Local` parameters), kept by a schedule between runs.
    type State: Send + 'static;
    /// What the condition reads (its `reads` only: a condition writes nothing).
    fn descriptor(&self) -> SystemDescriptor;
    /// Fresh state.
    fn init_state(&self) -> Self::State;
    /// Evaluates the condition with the stores and resources it declared.
    fn evaluate(&self, state: &mut Self::State, context: SystemContext<'_>) -> bool;
}

/// Something that makes a condition: the function `#[condition]` generates (`is_day`, not
/// `is_day()`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a run condition",
    label = "not a `#[condition]` function",
    note = "pass a function declared with `#[condition(reads(..))]`, by name: `run_if(is_day)`"
)]
pub trait IntoCondition {
    /// The condition made.
    type Condition: Condition;
    /// Makes it.
    fn into_condition(self) -> Self::Condition;
}

impl<F: FnOnce() -> C, C: Condition> IntoCondition for F {
    type Condition = C;
    fn into_condition(self) -> C {
        self()
    }
}

/// A condition with its state, its type erased.
trait BoxedCondition: Send {
    fn evaluate(&mut self, world: &mut World) -> bool;
    fn descriptor(&self) -> &SystemDescriptor;
}

struct WithState<C: Condition> {
    condition: C,
    state: C::State,
    descriptor: SystemDescriptor,
}

impl<C: Condition> BoxedCondition for WithState<C> {
    fn evaluate(&mut self, world: &mut World) -> bool {
        // A condition records nothing (its parameters cannot hold `Commands` or an event
        // writer); the sink only satisfies `SystemContext`.
        let sink = Mutex::new(CommandQueue::default());
        let result = {
            let borrows = match world.split_for_systems(&[&self.descriptor]) {
                Ok(mut v) => v.pop().expect("one set of borrows per condition"),
                Err(e) => panic!("{e}"),
            };
            self.condition.evaluate(
                &mut self.state,
                SystemContext::new(borrows, &sink, self.descriptor.name),
            )
        };
        debug_assert!(
            sink.into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .is_empty(),
            "condition `{}` recorded commands",
            self.descriptor.name
        );
        result
    }

    fn descriptor(&self) -> &SystemDescriptor {
        &self.descriptor
    }
}

enum Node {
    Leaf(Box<dyn BoxedCondition>),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
}

/// A run condition tree: conditions combined with [`and`](RunIf::and), [`or`](RunIf::or) and
/// [`not`]. Evaluated left to right, short-circuiting like `&&` and `||`.
///
/// Made from a `#[condition]` function with [`IntoRunIf`] (`RunIf::from_condition(is_day)`), or
/// with the combinators: `is_day.and(has_prey)` ([`ConditionExt`]), `not(is_day)`.
pub struct RunIf(Node);

impl RunIf {
    /// A tree of one condition.
    pub fn from_condition<C: IntoCondition>(condition: C) -> RunIf {
        let condition = condition.into_condition();
        let state = condition.init_state();
        let descriptor = condition.descriptor();
        RunIf(Node::Leaf(Box::new(WithState {
            condition,
            state,
            descriptor,
        })))
    }

    /// True when both are (`other` is not evaluated when `self` is false).
    pub fn and(self, other: impl IntoRunIf) -> RunIf {
        RunIf(Node::And(Box::new(self.0), Box::new(other.into_run_if().0)))
    }

    /// True when either is (`other` is not evaluated when `self` is true).
    pub fn or(self, other: impl IntoRunIf) -> RunIf {
        RunIf(Node::Or(Box::new(self.0), Box::new(other.into_run_if().0)))
    }

    /// Evaluates the tree on `world`, each condition on its own borrows (which also records the
    /// evaluation as the condition's last run for its `Changed`/`Added` filters).
    ///
    /// # Panics
    ///
    /// If a condition panics, or reads a resource that is not in the world.
    pub fn evaluate(&mut self, world: &mut World) -> bool {
        fn eval(node: &mut Node, world: &mut World) -> bool {
            match node {
                Node::Leaf(c) => c.evaluate(world),
                Node::Not(n) => !eval(n, world),
                Node::And(a, b) => eval(a, world) && eval(b, world),
                Node::Or(a, b) => eval(a, world) || eval(b, world),
            }
        }
        eval(&mut self.0, world)
    }

    /// Every type the tree's conditions read, each once, in the order they first appear.
    pub fn reads(&self) -> Vec<DeclaredAccess> {
        let mut out: Vec<DeclaredAccess> = Vec::new();
        self.0.for_each_leaf(&mut |c| {
            for a in &c.descriptor().reads {
                if !out.contains(a) {
                    out.push(*a);
                }
            }
        });
        out
    }

    /// The identities of the tree's conditions, left to right.
    pub fn condition_ids(&self) -> Vec<TypeId> {
        let mut out = Vec::new();
        self.0.for_each_leaf(&mut |c| out.push(c.descriptor().id));
        out
    }
}

impl Node {
    /// Calls `f` on every condition of the tree, left to right.
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn BoxedCondition)) {
        match self {
            Node::Leaf(c) => f(c.as_ref()),
            Node::Not(n) => n.for_each_leaf(f),
            Node::And(a, b) | Node::Or(a, b) => {
                a.for_each_leaf(f);
                b.for_each_leaf(f);
            }
        }
    }
}

/// `is_day and not(has_prey)`: conditions by name, `and` and `or` infix, parenthesised where
/// they nest.
impl fmt::Display for RunIf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn write(node: &Node, f: &mut fmt::Formatter<'_>, nested: bool) -> fmt::Result {
            match node {
                Node::Leaf(c) => f.write_str(c.descriptor().name),
                Node::Not(n) => {
                    f.write_str("not(")?;
                    write(n, f, false)?;
                    f.write_str(")")
                }
                Node::And(a, b) | Node::Or(a, b) => {
                    let op = if matches!(node, Node::And(..)) {
                        " and "
                    } else {
                        " or "
                    };
                    if nested {
                        f.write_str("(")?;
                    }
                    write(a, f, true)?;
                    f.write_str(op)?;
                    write(b, f, true)?;
                    if nested {
                        f.write_str(")")?;
                    }
                    Ok(())
                }
            }
        }
        write(&self.0, f, false)
    }
}

impl fmt::Debug for RunIf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RunIf({self})")
    }
}

/// Something that makes a [`RunIf`]: a `#[condition]` function, or a tree already combined.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a run condition",
    label = "not a `#[condition]` function or a combination of them",
    note = "pass a function declared with `#[condition(reads(..))]`, by name, or combine them: `is_day.and(has_prey)`, `not(is_day)`"
)]
pub trait IntoRunIf {
    /// Makes the tree.
    fn into_run_if(self) -> RunIf;
}

impl<F: IntoCondition> IntoRunIf for F {
    fn into_run_if(self) -> RunIf {
        RunIf::from_condition(self)
    }
}

impl IntoRunIf for RunIf {
    fn into_run_if(self) -> RunIf {
        self
    }
}

/// `and`/`or` on `#[condition]` functions themselves: `is_day.and(has_prey)`.
pub trait ConditionExt: IntoRunIf + Sized {
    /// True when both are (`other` is not evaluated when `self` is false).
    fn and(self, other: impl IntoRunIf) -> RunIf {
        self.into_run_if().and(other)
    }

    /// True when either is (`other` is not evaluated when `self` is true).
    fn or(self, other: impl IntoRunIf) -> RunIf {
        self.into_run_if().or(other)
    }
}

impl<F: IntoCondition> ConditionExt for F {}

/// True when `condition` is false.
pub fn not(condition: impl IntoRunIf) -> RunIf {
    RunIf(Node::Not(Box::new(condition.into_run_if().0)))
}
