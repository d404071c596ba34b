"""The paper's experiments beyond Table 1: train many recipes, score them on the sweep suite,
tabulate them (ablations: Table 3; backbones: Table 4; hyper-parameters: Figure 5)."""
