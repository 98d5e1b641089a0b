"""Impact lab: planar rigid impact laws and the Energy Ellipse.

Reproduces the single-contact planar impact laws compared by Fazeli et al.,
"Fundamental Limitations in Performance and Interpretability of Common Planar
Rigid-Body Contact Models" (2020). The laws and the contact space are described in
docs/design/impact-laws.md.

Modules:
    contact_space   the 2-D contact space of one point contact with the ground
                    (Jacobian, compliance W, Energy Ellipse, admissible set).
    laws            the six impact laws in closed form (AP Newton, AP Poisson,
                    Drumwright-Shell, Wang-Mason, Mirtich, Whittaker).
    routh           a numerical Routh integrator, the independent reference for
                    Wang-Mason and Mirtich.
    ellipse_plot    Energy Ellipse figures with each law's sheet (paper Figs. 3-4).
    drop            one impact event, the record the modules below share.
    data            readers and writers of planar impact data.
    bounds          post hoc impulses (paper eq. 7), the IRB bound, Best Post Hoc.
    identify        identification of a law's (mu, e) (paper eqs. 8-9).
    synthetic       synthetic ellipse drops simulated by csim.
    compliant       csim's compliant contact models used as impact laws.
    analysis_plots  figures and tables of the identification study.
    cli             the command line (python3 -m impact): laws, identify, bound,
                    compare, plots, synthetic.
    tests           pytest tests.
"""
