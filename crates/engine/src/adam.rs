//! Adam (Kingma & Ba 2015) on a flat parameter vector, with the usual β = (0.9, 0.999),
//! ε = 1e-8 and bias correction.

/// Adam's moment estimates for one parameter vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Adam {
    learning_rate: f64,
    m: Vec<f64>,
    v: Vec<f64>,
    // β₁ᵗ and β₂ᵗ as running products (portable, unlike powi).
    b1t: f64,
    b2t: f64,
}

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

impl Adam {
    /// Fresh moments for `n` parameters.
    pub fn new(n: usize, learning_rate: f64) -> Self {
        Adam { learning_rate, m: vec![0.0; n], v: vec![0.0; n], b1t: 1.0, b2t: 1.0 }
    }

    /// One descent step on `params` along `grad`.
    pub fn step(&mut self, params: &mut [f64], grad: &[f64]) {
        self.b1t *= BETA1;
        self.b2t *= BETA2;
        let (c1, c2) = (1.0 - self.b1t, 1.0 - self.b2t);
        for (i, p) in params.iter_mut().enumerate() {
            let g = grad[i];
            self.m[i] = BETA1 * self.m[i] + (1.0 - BETA1) * g;
            self.v[i] = BETA2 * self.v[i] + (1.0 - BETA2) * g * g;
            *p -= self.learning_rate * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + EPS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_step_moves_each_coordinate_by_the_learning_rate() {
        // With bias correction the first step is lr·g/|g| (up to ε) whatever g's scale.
        let mut adam = Adam::new(2, 0.1);
        let mut p = [1.0, -2.0];
        adam.step(&mut p, &[1e-3, -50.0]);
        assert!((p[0] - 0.9).abs() < 1e-6 && (p[1] + 1.9).abs() < 1e-9, "{p:?}");
    }

    #[test]
    fn minimises_a_quadratic() {
        let mut adam = Adam::new(1, 0.05);
        let mut p = [3.0];
        for _ in 0..2000 {
            let g = [2.0 * (p[0] - 0.5)];
            adam.step(&mut p, &g);
        }
        assert!((p[0] - 0.5).abs() < 1e-3, "{p:?}");
    }
}
