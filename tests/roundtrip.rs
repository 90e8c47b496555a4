//! Property: any model the synthetic generator makes (every handle kind, every format 2–7) encodes to bytes
//! that decode to the same model, and re-encode to the same bytes. (Real files: see
//! flink_reference::every_fixture_encodes_back_to_its_bytes.)

use sp_inspect::metadata::encode::encode;
use sp_inspect::metadata::{decode, DecodeOptions};
use sp_inspect::model::{Metadata, Tail, Trailer};
use sp_inspect::synth::{self, Profile, Rng};

fn model(seed: u64, version: i32) -> Metadata {
    let mut rng = Rng::new(seed);
    let n = rng.below(4) as usize;
    let header = synth::header(&mut rng, version, n);
    let operators = (0..n)
        .map(|_| {
            let parallelism = 1 + rng.below(4) as i32;
            synth::operator(&mut rng, &Profile::SMALL, version, parallelism)
        })
        .collect();
    let trailer = (version >= 4).then(|| Trailer {
        offset: 0,
        bytes: synth::trailer_bytes(),
        properties: None,
        note: None,
    });
    Metadata {
        header,
        operators,
        tail: Tail {
            trailer,
            ignored_bytes: 0,
        },
    }
}

#[test]
fn random_models_survive_encode_and_decode() {
    let mut handles = 0usize;
    for seed in 0..400u64 {
        for version in 2..=7 {
            let md = model(seed * 16 + version as u64, version);
            let bytes = encode(&md);
            let back = decode(&bytes, DecodeOptions::default())
                .unwrap_or_else(|e| panic!("seed {seed}, format {version}: {e}"));
            assert_eq!(back.header, md.header, "seed {seed}, format {version}");
            assert_eq!(back.operators.len(), md.operators.len());
            for (a, b) in back.operators.iter().zip(&md.operators) {
                let a = sp_inspect::model::OperatorState {
                    offset: 0,
                    ..a.clone()
                };
                assert_eq!(&a, b, "seed {seed}, format {version}");
                handles += b.subtasks.len();
            }
            assert_eq!(
                back.tail.trailer.map(|t| t.bytes),
                md.tail.trailer.map(|t| t.bytes)
            );
            assert!(encode(&decode(&bytes, DecodeOptions::default()).expect("again")) == bytes);
        }
    }
    assert!(
        handles > 1000,
        "the generator made too little: {handles} subtasks"
    );
}
