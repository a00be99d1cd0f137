"""What a run is made of besides the judgments: the committed corpus (`corpus`), the query template with its
placeholders (`templates`), the frozen clock (`clock`) and the embedded engine's synonyms sets (`synonyms_sets`).
"""
