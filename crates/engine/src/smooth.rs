//! The smooth maps the engine's models share: the logistic sigmoid (bounded parameters of the
//! GP fit, the prior's and the deep kernel's positive outputs) and softplus (positive
//! parameters and outputs). Both through libm, so that native and wasm builds agree to the bit.

/// σ(v) = 1 / (1 + e^(−v)).
pub fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-v))
}

/// softplus(v) = log(1 + e^v), and v itself beyond 30 (where the two agree to 1e-13 and
/// e^v would lose the digits).
pub fn softplus(v: f64) -> f64 {
    if v > 30.0 {
        v
    } else {
        libm::log1p(libm::exp(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_their_closed_forms_and_derivative_relation() {
        assert_eq!(sigmoid(0.0), 0.5);
        assert!((softplus(0.0) - std::f64::consts::LN_2).abs() < 1e-15);
        assert!((softplus(30.0) - 30.0).abs() < 1e-12 && softplus(31.0) == 31.0);
        // softplus' = sigmoid, checked by central differences.
        for v in [-8.0, -1.3, 0.0, 0.7, 5.0] {
            let h = 1e-6;
            let fd = (softplus(v + h) - softplus(v - h)) / (2.0 * h);
            assert!((fd - sigmoid(v)).abs() < 1e-8, "{v}: {fd} vs {}", sigmoid(v));
        }
    }
}
