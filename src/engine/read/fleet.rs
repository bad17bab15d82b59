//! Reading a server's replicas ([`crate::engine::fleet`]): `server.replicas`,
//! `server.balancer` and `server.overrides`, with the same located errors as the rest
//! of the reader.

use super::{Fields, Reader};
use crate::engine::fleet::{Balancer, Fleet, MAX_REPLICAS, Override};
use crate::engine::scenario::{MAX_CAPACITY, ServerModel};
use crate::engine::schema::Section;
use crate::yaml::{Node, Value};

impl Reader {
    /// `retry.elsewhere` needs a server of several replicas (or `replicas: 1` written,
    /// the fleet at its smallest, as a sweep or a reader's knob sets it).
    pub(super) fn relations_of_fleet(&mut self, s: &crate::engine::Scenario, top: &Fields) {
        let key = top
            .get("retry")
            .and_then(|r| r.entry("elsewhere"))
            .map(|(k, _)| k);
        let written = top.get("server").and_then(|n| n.get("replicas")).is_some();
        if let Some(key) = key.filter(|_| s.retry.elsewhere && s.server.fleet.is_none() && !written)
        {
            self.error(
                key,
                "`retry.elsewhere` needs `server.replicas` of 2 or more".to_string(),
                Some("a server of one replica has nowhere else to send a retry".to_string()),
            );
        }
    }

    /// The fleet of the server whose keys are `fields`: `None` for one replica (the
    /// default, or `replicas: 1`), the fleet when it has more; `Err` after a mistake,
    /// which is told.
    pub(super) fn fleet(
        &mut self,
        fields: &Fields,
        model: Option<ServerModel>,
    ) -> Result<Option<Fleet>, ()> {
        let replicas = match fields.get("replicas") {
            Some(node) => self.whole(node, "server.replicas", 1, u64::from(MAX_REPLICAS)),
            None => Some(1),
        };
        let balancers = Balancer::ALL.map(|b| (b.name(), b));
        let balancer = match fields.get("balancer") {
            Some(n) => self.choice(n, "server.balancer", "balancer", &balancers),
            None => Some(Balancer::RoundRobin),
        };
        let overrides = match fields.get("overrides") {
            Some(node) => self.overrides(node, replicas, model),
            None => Some(Vec::new()),
        };
        let (Some(replicas), Some(balancer), Some(overrides)) = (replicas, balancer, overrides)
        else {
            return Err(());
        };
        let replicas = replicas as u32;
        if replicas == 1 {
            // One replica has nothing to balance or override: say so, rather than
            // quietly leave out what the author wrote. A balancer beside `replicas: 1`
            // is the fleet at its smallest, as a sweep or a reader's knob sets it.
            let written = fields.get("replicas").is_some();
            for name in ["balancer", "overrides"] {
                if name == "balancer" && written {
                    continue;
                }
                if let (Some(key), Some(_)) = (fields.key(name), fields.get(name)) {
                    self.error(
                        key,
                        format!("`server.{name}` needs `server.replicas` of 2 or more"),
                        Some("a server of one replica sends it every call".to_string()),
                    );
                    return Err(());
                }
            }
            return Ok(None);
        }
        Ok(Some(Fleet {
            replicas,
            balancer,
            overrides,
        }))
    }

    /// `server.overrides`: a list of maps, each naming a replica (1 to `replicas`, each
    /// at most once) and what it has of its own; a queue needs the server's `model`
    /// to be `capacity`.
    fn overrides(
        &mut self,
        node: &Node,
        replicas: Option<u64>,
        model: Option<ServerModel>,
    ) -> Option<Vec<Override>> {
        let Value::Seq(items) = &node.value else {
            self.error(
                node,
                format!(
                    "`server.overrides` must be a list like [{{replica: 3, capacity: 2}}], \
                     found {}",
                    node.describe()
                ),
                None,
            );
            return None;
        };
        let mut overrides: Vec<Override> = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(fields) = self.fields(item, Section::Override, "an override") else {
                if item.is_null() {
                    self.missing(item, "replica", "the number of the replica, from 1");
                }
                ok = false;
                continue;
            };
            let replica = match fields.get("replica") {
                Some(n) => self.whole(n, "server.overrides[].replica", 1, u64::from(MAX_REPLICAS)),
                None => {
                    self.missing(item, "replica", "the number of the replica, from 1");
                    None
                }
            };
            let capacity = match fields.get("capacity") {
                Some(n) => {
                    match self.milli(n, "server.overrides[].capacity", MAX_CAPACITY * 1000) {
                        Some(0) => {
                            self.error(
                                n,
                                "`server.overrides[].capacity` must be more than 0".to_string(),
                                Some("for a replica that serves nothing, give it an outage".into()),
                            );
                            None
                        }
                        c => c.map(Some),
                    }
                }
                None => Some(None),
            };
            let outages = match fields.get("outages") {
                Some(n) => self.outages(n).map(Some),
                None => Some(None),
            };
            let slowdowns = match fields.get("slowdowns") {
                Some(n) => self.slowdowns(n).map(Some),
                None => Some(None),
            };
            let queue = match fields.get("queue") {
                Some(n) => self.queue(n, "server.overrides[].queue.").map(Some),
                None => Some(None),
            };
            if let (Some(model), Some(key), Some(_)) =
                (model, fields.key("queue"), fields.get("queue"))
            {
                self.queue_needs_capacity(model, key);
            }
            let (Some(replica), Some(capacity_milli), Some(outages), Some(slowdowns), Some(queue)) =
                (replica, capacity, outages, slowdowns, queue)
            else {
                ok = false;
                continue;
            };
            let at = fields.get("replica").unwrap_or(item);
            if let Some(replicas) = replicas.filter(|&n| replica > n) {
                self.error(
                    at,
                    format!(
                        "`server.overrides[].replica` is {replica}, but the server has {replicas} \
                         replicas"
                    ),
                    Some(format!("replicas are numbered from 1 to {replicas}")),
                );
                ok = false;
                continue;
            }
            let replica = replica as u32;
            if overrides.iter().any(|o| o.replica == replica) {
                self.error(
                    at,
                    format!("replica {replica} is overridden twice"),
                    Some("give each replica one override, with all it has of its own".into()),
                );
                ok = false;
                continue;
            }
            overrides.push(Override {
                replica,
                capacity_milli,
                outages,
                slowdowns,
                queue,
            });
        }
        ok.then_some(overrides)
    }
}
