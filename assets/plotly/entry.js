// The plotly.js traces posviz draws: scatter (in core), bar and heatmap. Nothing else is loaded.
var Plotly = require('plotly.js/lib/core');

Plotly.register([require('plotly.js/lib/bar'), require('plotly.js/lib/heatmap')]);

module.exports = Plotly;
