//! The network: a GGRS `NonBlockingSocket` over a loopback `std::net::UdpSocket` that plays a
//! bad link on the way out — each packet is dropped or held back for a seeded latency plus
//! jitter (so packets also arrive out of order), deterministic from a seed.
//!
//! The fate of the n-th packet a socket sends is a function of the seed and n alone
//! ([`LinkModel`]); when a held packet leaves depends on the wall clock, which lives here and
//! in the peer loop, never in rota.

use std::cell::Cell;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::rc::Rc;
use std::time::{Duration, Instant};

use ggrs::{Message, NonBlockingSocket};

use crate::game::splitmix_finish;

/// A bad link's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkConditions {
    /// The base one-way delay added to every packet.
    pub latency: Duration,
    /// Up to this much more, uniformly, per packet.
    pub jitter: Duration,
    /// The probability of dropping a packet, `0.0..=1.0`.
    pub loss: f64,
}

impl LinkConditions {
    /// A perfect link.
    pub const PERFECT: LinkConditions = LinkConditions {
        latency: Duration::ZERO,
        jitter: Duration::ZERO,
        loss: 0.0,
    };
}

/// What happens to one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Never sent.
    Dropped,
    /// Sent this long after GGRS handed it over.
    Delayed(Duration),
}

/// Decides each packet's fate from a seed: the n-th call's answer depends on the seed, the
/// conditions and n only.
#[derive(Clone, Debug)]
pub struct LinkModel {
    conditions: LinkConditions,
    seed: u64,
    sent: u64,
}

impl LinkModel {
    /// A model of `conditions` seeded with `seed`.
    pub fn new(conditions: LinkConditions, seed: u64) -> LinkModel {
        LinkModel {
            conditions,
            seed,
            sent: 0,
        }
    }

    /// The next packet's fate.
    pub fn next_fate(&mut self) -> Fate {
        let n = self.sent;
        self.sent += 1;
        let draw = |stream: u64| splitmix_finish(self.seed ^ splitmix_finish(n ^ (stream << 56)));
        // The top 53 bits as a uniform number in 0..1.
        let unit = (draw(1) >> 11) as f64 / (1u64 << 53) as f64;
        if unit < self.conditions.loss {
            return Fate::Dropped;
        }
        let jitter_micros = self.conditions.jitter.as_micros() as u64;
        let extra = if jitter_micros == 0 {
            0
        } else {
            draw(2) % (jitter_micros + 1)
        };
        Fate::Delayed(self.conditions.latency + Duration::from_micros(extra))
    }
}

/// A packet held back until `due`.
struct Held {
    due: Instant,
    to: SocketAddr,
    bytes: Vec<u8>,
}

/// Packets a [`LossySocket`] sent and dropped, readable after GGRS owns the socket.
#[derive(Debug, Default)]
pub struct LinkCounters {
    /// Packets that left (held ones once they leave).
    pub sent: Cell<u64>,
    /// Packets the link dropped.
    pub dropped: Cell<u64>,
}

/// GGRS's socket: loopback UDP, non-blocking, with [`LinkModel`] on every outgoing packet.
pub struct LossySocket {
    socket: UdpSocket,
    link: LinkModel,
    held: Vec<Held>,
    buffer: Vec<u8>,
    counters: Rc<LinkCounters>,
}

impl LossySocket {
    /// Binds `127.0.0.1:port`, non-blocking.
    ///
    /// # Errors
    ///
    /// The socket's bind or mode error.
    pub fn bind(port: u16, link: LinkModel) -> std::io::Result<LossySocket> {
        let socket = UdpSocket::bind(("127.0.0.1", port))?;
        socket.set_nonblocking(true)?;
        Ok(LossySocket {
            socket,
            link,
            held: Vec::new(),
            buffer: vec![0; 4096],
            counters: Rc::default(),
        })
    }

    /// This socket's counters (shared: they stay readable once GGRS owns the socket).
    pub fn counters(&self) -> Rc<LinkCounters> {
        Rc::clone(&self.counters)
    }

    /// Sends every held packet whose time has come, earliest first.
    fn release_due(&mut self) {
        let now = Instant::now();
        self.held.sort_by_key(|h| h.due);
        let due = self.held.partition_point(|h| h.due <= now);
        for packet in self.held.drain(..due) {
            // A full send buffer on loopback is a lost packet, as on a real link.
            let _ = self.socket.send_to(&packet.bytes, packet.to);
            self.counters.sent.set(self.counters.sent.get() + 1);
        }
    }
}

impl NonBlockingSocket<SocketAddr> for LossySocket {
    fn send_to(&mut self, msg: &Message, addr: &SocketAddr) {
        match self.link.next_fate() {
            Fate::Dropped => self.counters.dropped.set(self.counters.dropped.get() + 1),
            Fate::Delayed(delay) => match bincode::serialize(msg) {
                Ok(bytes) => self.held.push(Held {
                    due: Instant::now() + delay,
                    to: *addr,
                    bytes,
                }),
                Err(_) => self.counters.dropped.set(self.counters.dropped.get() + 1),
            },
        }
        self.release_due();
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        self.release_due();
        let mut received = Vec::new();
        loop {
            match self.socket.recv_from(&mut self.buffer) {
                Ok((len, from)) => {
                    if let Ok(msg) = bincode::deserialize(&self.buffer[..len]) {
                        received.push((from, msg));
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return received,
                // Loopback reports an unreachable peer (ICMP) as an error on some systems;
                // a peer that has finished is not a failure of this one.
                Err(_) => return received,
            }
        }
    }
}

#[cfg(test)]
mod tests;
