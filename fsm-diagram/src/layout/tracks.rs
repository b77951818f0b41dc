//! Tracks: where edges run sideways in the gap between two ranks.
//!
//! An edge crosses a gap from the x where it leaves the rank above to the x
//! where it enters the rank below. Drawn as one diagonal (a curve), two
//! such edges that go the same way a long way overlap almost entirely: a
//! fan of edges out of one box reads as one thick line. So every link that
//! moves sideways further than [`JOG`] gets a *track*, a height of its own
//! in the gap where it runs across, [`TRACK_GAP`] from the next, and the
//! gap grows to hold its tracks (channel routing).
//!
//! Tracks are stacked so they add no crossing: of two links going right
//! whose runs overlap, the one starting further right runs higher, as it
//! must to clear the other's descent; going left, the one starting further
//! left. Two links that cross go either way, crossing once. Each link takes
//! the track below every overlapping link stacked before it (a longest
//! path), found with a segment tree, so a gap of `k` links costs
//! `O(k log k)`.

/// Links that move sideways by at most this much stay one curve across
/// the gap: they are steep enough to read apart.
pub(super) const JOG: f64 = 24.0;
/// Height between tracks, and between a track and the ranks around.
pub(super) const TRACK_GAP: f64 = 11.0;
/// Runs closer than this share no track.
const CLEARANCE: f64 = 8.0;
/// The most tracks a gap gets. A gap that would need more is a tangle
/// (random machines have gaps crossed by hundreds of runs), where tracks
/// would make the drawing many times taller without making it readable:
/// its links stay single curves, as steep ones do.
pub(super) const MAX_TRACKS: usize = 8;

/// A link crossing one gap: where it leaves the rank above and enters the
/// rank below.
#[derive(Clone, Copy)]
pub(super) struct Link {
    pub from: f64,
    pub to: f64,
}

/// The track of each link that gets one, counted from the top, and the
/// number of tracks. Steep links get none, nor does a link whose run
/// overlaps no other's, unless `border` (the gap runs along a compound
/// node's border, which a long curve would hug for half its length), nor
/// any link of a gap that would need more than [`MAX_TRACKS`].
pub(super) fn assign(links: &[Link], border: bool) -> (Vec<Option<usize>>, usize) {
    let mut tracks = vec![None; links.len()];
    let span = |i: usize| {
        let (a, b) = (links[i].from, links[i].to);
        (a.min(b) - CLEARANCE / 2.0, a.max(b) + CLEARANCE / 2.0)
    };
    let mut sideways: Vec<usize> = (0..links.len())
        .filter(|&i| (links[i].to - links[i].from).abs() > JOG)
        .collect();
    if !border {
        // Keep the runs that overlap another: sorted by their left end, a
        // run overlaps an earlier one if it starts before the furthest end
        // so far.
        sideways.sort_by(|&a, &b| span(a).0.total_cmp(&span(b).0));
        let mut overlaps = vec![false; sideways.len()];
        let mut furthest = (f64::NEG_INFINITY, usize::MAX);
        for (k, &i) in sideways.iter().enumerate() {
            let (lo, hi) = span(i);
            if lo < furthest.0 {
                overlaps[k] = true;
                overlaps[furthest.1] = true;
            }
            if hi > furthest.0 {
                furthest = (hi, k);
            }
        }
        let mut k = 0;
        sideways.retain(|_| {
            k += 1;
            overlaps[k - 1]
        });
    }
    if sideways.is_empty() {
        return (tracks, 0);
    }
    // A steep link that overlaps a run joins the stack: as one curve across
    // the gap it would cut that run, and its rise, where the straight links
    // did not cross.
    let mut runs: Vec<(f64, f64)> = sideways.iter().map(|&i| span(i)).collect();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f64, f64)> = Vec::with_capacity(runs.len());
    for (lo, hi) in runs {
        match merged.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    let overlaps_run = |(lo, hi): (f64, f64)| {
        let k = merged.partition_point(|r| r.1 < lo);
        merged.get(k).is_some_and(|r| r.0 <= hi)
    };
    sideways.extend((0..links.len()).filter(|&i| {
        let dx = (links[i].to - links[i].from).abs();
        dx > 0.5 && dx <= JOG && overlaps_run(span(i))
    }));
    // Right-going links first, the one starting furthest right on top;
    // then the left-going ones, the one starting furthest left on top.
    let right = |i: usize| links[i].to > links[i].from;
    sideways.sort_by(|&a, &b| {
        right(b).cmp(&right(a)).then_with(|| {
            let key = |i: usize| if right(i) { -links[i].from } else { links[i].from };
            key(a).total_cmp(&key(b))
        })
    });
    let mut xs: Vec<f64> = sideways
        .iter()
        .flat_map(|&i| {
            let (lo, hi) = span(i);
            [lo, hi]
        })
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let at = |x: f64| xs.partition_point(|&y| y < x);
    let mut tree = Tree::new(xs.len());
    let mut count = 0;
    for i in sideways {
        let (lo, hi) = span(i);
        let (l, r) = (at(lo), at(hi));
        // Tracks are stored plus one: 0 is "free".
        let track = tree.max(l, r);
        tree.assign(l, r, track + 1);
        tracks[i] = Some(track);
        count = count.max(track + 1);
        if count > MAX_TRACKS {
            return (vec![None; links.len()], 0);
        }
    }
    (tracks, count)
}

/// The height of a gap holding `tracks` tracks whose ends bend `bend`
/// above and below them.
pub(super) fn gap_height(tracks: usize, bend: f64, least: f64) -> f64 {
    if tracks == 0 {
        return least;
    }
    least.max((tracks + 1) as f64 * TRACK_GAP + 2.0 * bend)
}

/// A segment tree over `0..n`: the maximum of a range, and assigning a
/// value to a range no smaller than anything in it (so assigning is taking
/// the maximum).
struct Tree {
    n: usize,
    max: Vec<usize>,
    /// A value assigned to the whole of a node's range, not yet passed to
    /// its children.
    pending: Vec<usize>,
}

impl Tree {
    fn new(n: usize) -> Tree {
        Tree {
            n,
            max: vec![0; 4 * n.max(1)],
            pending: vec![0; 4 * n.max(1)],
        }
    }

    /// The maximum over `l..=r`.
    fn max(&mut self, l: usize, r: usize) -> usize {
        self.query(1, 0, self.n - 1, l, r)
    }

    /// Set `l..=r` to `value`.
    fn assign(&mut self, l: usize, r: usize, value: usize) {
        self.update(1, 0, self.n - 1, l, r, value);
    }

    fn push(&mut self, node: usize) {
        let value = self.pending[node];
        if value > 0 {
            for child in [2 * node, 2 * node + 1] {
                self.max[child] = self.max[child].max(value);
                self.pending[child] = self.pending[child].max(value);
            }
            self.pending[node] = 0;
        }
    }

    fn query(&mut self, node: usize, lo: usize, hi: usize, l: usize, r: usize) -> usize {
        if r < lo || hi < l {
            return 0;
        }
        if l <= lo && hi <= r {
            return self.max[node];
        }
        self.push(node);
        let mid = (lo + hi) / 2;
        self.query(2 * node, lo, mid, l, r)
            .max(self.query(2 * node + 1, mid + 1, hi, l, r))
    }

    fn update(&mut self, node: usize, lo: usize, hi: usize, l: usize, r: usize, value: usize) {
        if r < lo || hi < l {
            return;
        }
        if l <= lo && hi <= r {
            self.max[node] = self.max[node].max(value);
            self.pending[node] = self.pending[node].max(value);
            return;
        }
        self.push(node);
        let mid = (lo + hi) / 2;
        self.update(2 * node, lo, mid, l, r, value);
        self.update(2 * node + 1, mid + 1, hi, l, r, value);
        self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(from: f64, to: f64) -> Link {
        Link { from, to }
    }

    #[test]
    fn a_fan_going_right_stacks_the_rightmost_start_on_top() {
        let (tracks, count) = assign(&[link(0.0, 200.0), link(14.0, 210.0), link(28.0, 220.0)], false);
        assert_eq!(count, 3);
        assert_eq!(tracks, vec![Some(2), Some(1), Some(0)]);
    }

    #[test]
    fn a_fan_going_left_stacks_the_leftmost_start_on_top() {
        let (tracks, _) = assign(&[link(300.0, 10.0), link(314.0, 20.0)], false);
        assert_eq!(tracks, vec![Some(0), Some(1)]);
    }

    #[test]
    fn steep_links_and_runs_apart_share_nothing() {
        let links = [
            link(0.0, 10.0),
            link(0.0, 100.0),
            link(200.0, 300.0),
            link(500.0, 400.0),
        ];
        assert_eq!(assign(&links, false), (vec![None; 4], 0));
        // Along a border every run gets a track, and the steep link beside
        // the first one joins it.
        let (tracks, count) = assign(&links, true);
        assert_eq!(tracks, vec![Some(1), Some(0), Some(0), Some(0)]);
        assert_eq!(count, 2);
    }

    #[test]
    fn a_run_overlapping_a_later_one_gets_a_track() {
        let (tracks, _) = assign(&[link(0.0, 300.0), link(100.0, 150.0), link(400.0, 500.0)], false);
        assert_eq!(tracks, vec![Some(1), Some(0), None]);
    }

    #[test]
    fn a_steep_link_beside_a_run_joins_the_stack() {
        // Not crossing as straight lines: the steep one must not cut the run.
        let (tracks, _) = assign(&[link(125.0, 16.0), link(139.0, 69.0), link(153.0, 130.0)], false);
        assert_eq!(tracks, vec![Some(0), Some(1), Some(2)]);
        let (tracks, _) = assign(&[link(0.0, 5.0), link(100.0, 300.0), link(110.0, 330.0)], false);
        assert_eq!(tracks[0], None);
    }

    #[test]
    fn a_tangle_gets_no_tracks() {
        let links: Vec<Link> = (0..=MAX_TRACKS)
            .map(|i| link(i as f64, 1000.0 + i as f64))
            .collect();
        assert_eq!(assign(&links, false), (vec![None; MAX_TRACKS + 1], 0));
    }
}
