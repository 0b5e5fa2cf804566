"""``scipy.stats.multivariate_normal``'s log density and density, in
both modes, in the points, the mean and the covariance, its entropy in
the covariance, and
``scipy.stats.dirichlet``'s log density and density in the points and
the concentrations; registered only when SciPy is installed.

With ``r = x - mean`` and ``alpha = cov^-1 r`` (one row per point):
d/dx = -alpha, d/dmean = alpha, d/dcov = (alpha alpha^T - cov^-1) / 2.
The points are one (shape ``(d,)``) or a stack (``(n, d)``) of points of
dimension d > 1, with mean of shape ``(d,)`` and cov of shape ``(d, d)``
(SciPy's other spellings, a scalar cov or points of dimension 1, are not
covered).
"""
from tangent_ad.registry import adjoint, tangent

try:
    import numpy as np
    from scipy import special, stats

    from tangent_ad.runtime import matrix_transpose, unbroadcast
except ImportError:  # no SciPy: no rules, and nothing else changes
    stats = None

d = None  # d[x] is the adjoint (reverse) or tangent (forward) of x


if stats is not None:
    mvn = stats.multivariate_normal

    @adjoint(mvn.logpdf)
    def logpdf(result, x, mean, cov):
        alpha = matrix_transpose(np.linalg.solve(cov, matrix_transpose(np.atleast_2d(x - mean))))
        g = np.expand_dims(d[result], -1)
        d[x] = unbroadcast(-g * alpha, x)
        d[mean] = unbroadcast(g * alpha, mean)
        d[cov] = 0.5 * (np.matmul(matrix_transpose(g * alpha), alpha) -
                        np.sum(d[result]) * np.linalg.inv(cov))

    @tangent(mvn.logpdf)
    def logpdf_tangent(result, x, mean, cov):
        alpha = matrix_transpose(np.linalg.solve(cov, matrix_transpose(np.atleast_2d(x - mean))))
        d[result] = np.reshape(np.sum(alpha * (d[mean] - d[x]), -1) +
                               0.5 * np.sum(np.matmul(alpha, d[cov]) * alpha, -1) -
                               0.5 * np.trace(np.linalg.solve(cov, d[cov])), np.shape(result))

    @adjoint(mvn.pdf)
    def pdf(result, x, mean, cov):
        alpha = matrix_transpose(np.linalg.solve(cov, matrix_transpose(np.atleast_2d(x - mean))))
        g = np.expand_dims(d[result] * result, -1)
        d[x] = unbroadcast(-g * alpha, x)
        d[mean] = unbroadcast(g * alpha, mean)
        d[cov] = 0.5 * (np.matmul(matrix_transpose(g * alpha), alpha) -
                        np.sum(d[result] * result) * np.linalg.inv(cov))

    @tangent(mvn.pdf)
    def pdf_tangent(result, x, mean, cov):
        alpha = matrix_transpose(np.linalg.solve(cov, matrix_transpose(np.atleast_2d(x - mean))))
        d[result] = result * np.reshape(
            np.sum(alpha * (d[mean] - d[x]), -1) +
            0.5 * np.sum(np.matmul(alpha, d[cov]) * alpha, -1) -
            0.5 * np.trace(np.linalg.solve(cov, d[cov])), np.shape(result))

    @adjoint(mvn.entropy)
    def entropy(result, mean, cov):
        """(d log(2 pi e) + log det cov) / 2: the mean has no part in it."""
        d[cov] = 0.5 * d[result] * matrix_transpose(np.linalg.inv(cov))

    @tangent(mvn.entropy)
    def entropy_tangent(result, mean, cov):
        d[result] = 0.5 * np.trace(np.linalg.solve(cov, d[cov]))

    @adjoint(stats.dirichlet.logpdf)
    def dirichlet_logpdf(result, x, alpha):
        """Points along the first axis: x of shape (K,) or (K, N)."""
        a = np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
        d[x] = d[result] * (a - 1.0) / x
        d[alpha] = np.sum(np.reshape(d[result] * np.log(x), (np.shape(x)[0], -1)), -1) + \
            np.sum(d[result]) * (special.psi(np.sum(alpha)) - special.psi(alpha))

    @tangent(stats.dirichlet.logpdf)
    def dirichlet_logpdf_tangent(result, x, alpha):
        a = np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
        da = np.reshape(d[alpha], np.shape(alpha) + (1,) * (np.ndim(x) - 1))
        d[result] = np.sum((a - 1.0) / x * d[x] + np.log(x) * da, 0) + \
            np.sum((special.psi(np.sum(alpha)) - special.psi(alpha)) * d[alpha])

    @adjoint(stats.dirichlet.pdf)
    def dirichlet_pdf(result, x, alpha):
        """exp of the log density: its adjoints times the density."""
        a = np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
        d[x] = d[result] * result * (a - 1.0) / x
        d[alpha] = np.sum(np.reshape(d[result] * result * np.log(x), (np.shape(x)[0], -1)), -1) + \
            np.sum(d[result] * result) * (special.psi(np.sum(alpha)) - special.psi(alpha))

    @tangent(stats.dirichlet.pdf)
    def dirichlet_pdf_tangent(result, x, alpha):
        a = np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
        da = np.reshape(d[alpha], np.shape(alpha) + (1,) * (np.ndim(x) - 1))
        d[result] = result * (np.sum((a - 1.0) / x * d[x] + np.log(x) * da, 0) +
                              np.sum((special.psi(np.sum(alpha)) - special.psi(alpha)) * d[alpha]))
