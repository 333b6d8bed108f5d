/**
 * Word lists for the quantities. Like iGSM, a theme is a four-level hierarchy and a quantity is
 * "the number of each <level i name>'s <level i+1 name>". Names end in no `s`, so the possessive
 * is always `'s`, and no name is a prefix of another in the same theme.
 */
export interface Theme {
  name: string;
  /** Four levels, each of eight distinct names. */
  levels: readonly (readonly string[])[];
}

export const THEMES: readonly Theme[] = [
  {
    name: 'nature',
    levels: [
      [
        'Coral Reef',
        'Mangrove Swamp',
        'Alpine Meadow',
        'Rainforest',
        'Tundra',
        'Savanna',
        'Kelp Forest',
        'Desert Oasis',
      ],
      ['Heron', 'Otter', 'Lynx', 'Tortoise', 'Gecko', 'Falcon', 'Badger', 'Salamander'],
      ['Heart', 'Liver', 'Lung', 'Kidney', 'Spleen', 'Stomach', 'Pancreas', 'Gallbladder'],
      ['Neuron', 'Hepatocyte', 'Macrophage', 'Fibroblast', 'Platelet', 'Lymphocyte', 'Osteocyte', 'Myocyte'],
    ],
  },
  {
    name: 'school',
    levels: [
      [
        'Riverside School',
        'Hilltop Academy',
        'Lakeside College',
        'Maple School',
        'Northgate Institute',
        'Harbor School',
        'Pinecrest Academy',
        'Westfield College',
      ],
      [
        'Chemistry Lab',
        'Music Room',
        'Art Studio',
        'Library',
        'Gym',
        'Geography Room',
        'Robotics Lab',
        'Drama Hall',
      ],
      [
        'Tote Bag',
        'Messenger Bag',
        'Duffel Bag',
        'Sling Bag',
        'Laptop Bag',
        'Rolling Backpack',
        'Pencil Case',
        'Lunch Box',
      ],
      ['Notebook', 'Eraser', 'Ruler', 'Marker', 'Stapler', 'Glue Stick', 'Compass', 'Highlighter'],
    ],
  },
  {
    name: 'city',
    levels: [
      [
        'Port City',
        'Hill Town',
        'River Village',
        'Capital City',
        'Mill Town',
        'Bay City',
        'Lake Town',
        'Market Town',
      ],
      [
        'Old Quarter',
        'Harbor District',
        'Garden District',
        'Arts Quarter',
        'Station District',
        'University Quarter',
        'Market District',
        'Castle Quarter',
      ],
      ['Bakery', 'Cinema', 'Pharmacy', 'Bookstore', 'Hotel', 'Gallery', 'Bank', 'Florist'],
      ['Window', 'Lamp', 'Chair', 'Shelf', 'Clock', 'Mirror', 'Rug', 'Fan'],
    ],
  },
  {
    name: 'farm',
    levels: [
      [
        'Sunny Farm',
        'Willow Farm',
        'Oak Ranch',
        'Cedar Farm',
        'Meadow Ranch',
        'Brook Farm',
        'Stone Ranch',
        'Valley Farm',
      ],
      [
        'Red Barn',
        'Grain Silo',
        'Tool Shed',
        'Greenhouse',
        'Hen House',
        'Stable',
        'Cold Cellar',
        'Packing Shed',
      ],
      [
        'Wooden Crate',
        'Wicker Basket',
        'Metal Bucket',
        'Burlap Sack',
        'Plastic Bin',
        'Clay Jar',
        'Feed Trough',
        'Egg Carton',
      ],
      ['Apple', 'Pear', 'Turnip', 'Pumpkin', 'Onion', 'Carrot', 'Plum', 'Potato'],
    ],
  },
];

/** A quantity: how many `item` each `owner` has. */
export interface Quantity {
  owner: string;
  item: string;
}

/** Every quantity a theme can name: owner from level i, item from level i + 1. */
export function quantitiesOf(theme: Theme): Quantity[] {
  const out: Quantity[] = [];
  for (let level = 0; level + 1 < theme.levels.length; level++) {
    for (const owner of theme.levels[level] ?? []) {
      for (const item of theme.levels[level + 1] ?? []) out.push({ owner, item });
    }
  }
  return out;
}

/** "each Heron's Liver" — how a quantity is named inside sentences. */
export function nameOf(q: Quantity): string {
  return `each ${q.owner}'s ${q.item}`;
}
