//! sp-inspect: decode Flink savepoint/checkpoint `_metadata` files, compute operator IDs, and predict
//! what a restore will do.
#![deny(missing_docs)]

pub mod cli;
pub mod config;
pub mod diff;
pub mod discover;
pub mod fix;
pub mod gate;
pub mod graph;
pub mod hash;
pub mod input;
pub mod job;
pub mod metadata;
pub mod model;
pub mod remap;
pub mod report;
pub mod rules;
pub mod run;
pub mod show;
pub mod sniff;
pub mod state;
pub mod stats;
pub mod synth;
pub mod verify;
