mod new;
mod old;
fn main() {
    let parties: Vec<usize> = std::env::args().nth(1).unwrap_or("2".into()).split(',').map(|x| x.parse().unwrap()).collect();
    let episodes = 20_000;
    for round in 0..3 {
        for &p in &parties {
            let b = old::SpinBarrier::new(p);
            let t = std::time::Instant::now();
            std::thread::scope(|s| { for _ in 0..p { let b = &b; s.spawn(move || { for _ in 0..episodes { assert!(b.wait()); } }); } });
            let o = t.elapsed().as_nanos() as f64 / episodes as f64;
            let b = new::SpinBarrier::new(p);
            let t = std::time::Instant::now();
            std::thread::scope(|s| { for me in 0..p { let b = &b; s.spawn(move || { for _ in 0..episodes { assert!(b.wait(me)); } }); } });
            let n = t.elapsed().as_nanos() as f64 / episodes as f64;
            println!("round {round} parties {p}: central {o:.0} ns, dissemination {n:.0} ns per episode");
        }
    }
}
